import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A Streamable HTTP MCP endpoint, minimally, that a test can restart at will: `initialize` opens a session
 * (`mcp-session-id`), notifications get 202, the GET opens the session's notification stream, `tools/call`
 * answers with JSON, and a request for a session it does not know gets the spec's 404. `forget()` is a
 * restart: every session is dropped and every notification stream ended. `holdUnknownUntil` keeps the 404s
 * waiting, so a test can put a request in flight exactly while the client is opening its new session;
 * `refuseStreams` answers the next GETs 503.
 */
export class McpEndpointDouble {
  readonly sessions = new Set<string>();
  /** Each request as `METHOD rpc-method session`, in arrival order. */
  readonly seen: string[] = [];
  holdUnknownUntil: Promise<void> | undefined;
  /** GETs answered 503 before anything else, as a server that began shutting down answers; -1 each one. */
  refuseStreams = 0;
  private readonly streams = new Set<ServerResponse>();
  private opened = 0;

  private constructor(private readonly server: Server) {}

  static async start(): Promise<McpEndpointDouble> {
    const server = createServer();
    const double = new McpEndpointDouble(server);
    server.on("request", (req, res) => void double.serve(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return double;
  }

  get url(): URL {
    return new URL(`http://127.0.0.1:${(this.server.address() as AddressInfo).port}/mcp`);
  }

  /** Open notification streams. */
  get streamCount(): number {
    return this.streams.size;
  }

  forget(): void {
    this.sessions.clear();
    for (const stream of this.streams) stream.end();
    this.streams.clear();
  }

  async stop(): Promise<void> {
    this.forget();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const session = req.headers["mcp-session-id"] as string | undefined;
    const body = req.method === "POST" ? (JSON.parse(await readBody(req)) as { id?: string | number; method?: string }) : undefined;
    this.seen.push(`${req.method} ${body?.method ?? "-"} ${session ?? "-"}`);
    if (req.method === "GET" && this.refuseStreams > 0) {
      this.refuseStreams--;
      return json(res, { jsonrpc: "2.0", id: null, error: { code: -32603, message: "closing" } }, {}, 503);
    }
    if (body?.method === "initialize") {
      const id = `session-${++this.opened}`;
      this.sessions.add(id);
      return json(res, { jsonrpc: "2.0", id: body.id, result: INITIALIZED }, { "mcp-session-id": id });
    }
    if (!session || !this.sessions.has(session)) {
      if (req.method === "POST") await this.holdUnknownUntil;
      return json(res, { jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } }, {}, 404);
    }
    if (req.method === "GET") {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.flushHeaders();
      this.streams.add(res);
      res.on("close", () => this.streams.delete(res));
      return;
    }
    if (body?.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    return json(res, { jsonrpc: "2.0", id: body.id, result: { content: [{ type: "text", text: `answered on ${session}` }] } });
  }
}

const INITIALIZED = {
  protocolVersion: "2025-06-18",
  capabilities: { tools: { listChanged: true } },
  serverInfo: { name: "mcp-endpoint-double", version: "0" },
};

function json(res: ServerResponse, body: unknown, headers: Record<string, string> = {}, status = 200): void {
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
