import { ChildServer } from "./child-server.js";
import { goPeer } from "./go-peer.js";
import { freePort } from "./service-process.js";

/**
 * An MCP server built with the Go MCP SDK (packages/test-support/go/mcp-server, built by
 * scripts/go-peers.sh): tools echo (text), weather (structured output) and fail (a tool error), over
 * Streamable HTTP at /mcp; with `token`, only `Authorization: Bearer <token>` is let in.
 */
export class GoMcpServer {
  private constructor(
    readonly port: number,
    private readonly process: ChildServer,
  ) {}

  static async start(options: { token?: string } = {}): Promise<GoMcpServer> {
    const port = await freePort();
    const process = new ChildServer({
      command: goPeer("mcp-server"),
      args: ["--port", String(port), ...(options.token ? ["--token", options.token] : [])],
      ready: `go-mcp-server listening on ${port}`,
      description: `Go MCP server on ${port}`,
    });
    await process.spawn();
    return new GoMcpServer(port, process);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/mcp`;
  }

  stop(): Promise<void> {
    return this.process.kill();
  }
}
