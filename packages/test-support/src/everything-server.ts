import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { freePort } from "./service-process.js";
import { waitFor } from "./wait.js";

const require = createRequire(import.meta.url);
const EVERYTHING_MAIN = join(dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist/index.js");

/**
 * @modelcontextprotocol/server-everything as a child process: `streamableHttp` serves /mcp, `sse` serves the
 * older HTTP+SSE transport (GET /sse + POST /message).
 */
export class EverythingServer {
  private child: ChildProcess | undefined;
  private output = "";

  private constructor(
    readonly mode: "streamableHttp" | "sse",
    readonly port: number,
  ) {}

  static async start(mode: "streamableHttp" | "sse", port?: number): Promise<EverythingServer> {
    const server = new EverythingServer(mode, port ?? (await freePort()));
    await server.spawn();
    return server;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/${this.mode === "sse" ? "sse" : "mcp"}`;
  }

  async spawn(): Promise<void> {
    // stdout carries a line per request; it is ignored so a full pipe never stalls the server.
    const child = spawn(process.execPath, [EVERYTHING_MAIN, this.mode], {
      env: { ...process.env, PORT: String(this.port) },
      stdio: ["ignore", "ignore", "pipe"],
    });
    this.child = child;
    this.output = "";
    child.stderr?.on("data", (d: Buffer) => (this.output = (this.output + d.toString()).slice(-8000)));
    const ready = this.mode === "sse" ? `running on port ${this.port}` : `listening on port ${this.port}`;
    await waitFor(
      () => {
        if (child.exitCode !== null) throw new Error(`server-everything exited ${child.exitCode}: ${this.output}`);
        return this.output.includes(ready);
      },
      { timeoutMs: 20_000, description: `server-everything ${this.mode} on ${this.port}` },
    );
  }

  /** Kills it at once (no goodbye to clients), as a crash would. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGKILL");
    await once(child, "exit");
  }

  stop(): Promise<void> {
    return this.kill();
  }
}

