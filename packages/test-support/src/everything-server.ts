import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { ChildServer } from "./child-server.js";
import { freePort } from "./service-process.js";

const require = createRequire(import.meta.url);
const EVERYTHING_MAIN = join(dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist/index.js");

/**
 * @modelcontextprotocol/server-everything as a child process: `streamableHttp` serves /mcp, `sse` serves the
 * older HTTP+SSE transport (GET /sse + POST /message).
 */
export class EverythingServer {
  private readonly process: ChildServer;

  private constructor(
    readonly mode: "streamableHttp" | "sse",
    readonly port: number,
  ) {
    this.process = new ChildServer({
      command: process.execPath,
      args: [EVERYTHING_MAIN, mode],
      env: { PORT: String(port) },
      ready: mode === "sse" ? `running on port ${port}` : `listening on port ${port}`,
      description: `server-everything ${mode} on ${port}`,
    });
  }

  static async start(mode: "streamableHttp" | "sse", port?: number): Promise<EverythingServer> {
    const server = new EverythingServer(mode, port ?? (await freePort()));
    await server.spawn();
    return server;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/${this.mode === "sse" ? "sse" : "mcp"}`;
  }

  spawn(): Promise<void> {
    return this.process.spawn();
  }

  /** Kills it at once (no goodbye to clients), as a crash would. */
  kill(): Promise<void> {
    return this.process.kill();
  }

  stop(): Promise<void> {
    return this.kill();
  }
}
