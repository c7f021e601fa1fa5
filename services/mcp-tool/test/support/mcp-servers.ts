import { once } from "node:events";
import { type IncomingMessage, type Server, type ServerResponse, createServer, request as httpRequest } from "node:http";
import { type Server as NetServer, type Socket, createServer as createNetServer } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import { freePort } from "@toolmesh/test-support";

export { EverythingServer } from "@toolmesh/test-support";

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function listen(server: Server | NetServer): Promise<number> {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (typeof address !== "object" || !address) throw new Error("no address");
  return address.port;
}

export interface AuthServer {
  url: string;
  initializeCount: () => number;
  close: () => Promise<void>;
}

/**
 * A tiny MCP server built with the SDK (stateless Streamable HTTP) that demands `Authorization: Bearer
 * <token>`. Tools: `fail` (always answers isError), `echo` ("tiny-echo: <message>") and `measure` (structured
 * content `{length, words}`).
 */
export async function startAuthServer(token: string): Promise<AuthServer> {
  let initializes = 0;
  const buildServer = () => {
    const mcp = new McpServer({ name: "tiny-auth-server", version: "1.0.0" });
    mcp.registerTool("fail", { description: "Always fails", inputSchema: { reason: z.string().optional() } }, async ({ reason }) => ({
      content: [{ type: "text", text: `the tool failed on purpose: ${reason ?? "no reason"}` }],
      isError: true,
    }));
    mcp.registerTool("echo", { description: "Echoes with a prefix", inputSchema: { message: z.string() } }, async ({ message }) => ({
      content: [{ type: "text", text: `tiny-echo: ${message}` }],
    }));
    mcp.registerTool(
      "measure",
      { description: "Measures a text", inputSchema: { text: z.string() }, outputSchema: { length: z.number(), words: z.number() } },
      async ({ text }) => {
        const measured = { length: text.length, words: text.split(/\s+/).filter(Boolean).length };
        return { content: [{ type: "text", text: JSON.stringify(measured) }], structuredContent: measured };
      },
    );
    return mcp;
  };
  const http = createServer(async (req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      res
        .writeHead(401, { "content-type": "application/json", "www-authenticate": "Bearer" })
        .end(JSON.stringify({ error: "unauthorized" }));
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405, { allow: "POST" }).end();
      return;
    }
    const body = JSON.parse((await readBody(req)).toString()) as { method?: string };
    if (body.method === "initialize") initializes += 1;
    const mcp = buildServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  const port = await listen(http);
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    initializeCount: () => initializes,
    close: async () => {
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
    },
  };
}

/**
 * An HTTP proxy in front of an MCP server that forwards everything and counts what passes: `initialize`
 * requests (one per session opened) and DELETEs (sessions ended by the client). `resetToolCalls = n` makes
 * it cut the connection of the next n tools/call requests instead of forwarding them, as a flaky network
 * or load balancer would: the client cannot tell whether the call ran, and the session lives on upstream.
 */
export class CountingProxy {
  initializes = 0;
  deletes = 0;
  posts = 0;
  resetToolCalls = 0;
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(upstreamPort: number): Promise<CountingProxy> {
    const counts = { target: undefined as CountingProxy | undefined };
    const server = createServer((req, res) => void forward(req, res, upstreamPort, counts.target!));
    const port = await listen(server);
    const proxy = new CountingProxy(server, port);
    counts.target = proxy;
    return proxy;
  }

  url(path = "/mcp"): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

async function forward(req: IncomingMessage, res: ServerResponse, upstreamPort: number, proxy: CountingProxy): Promise<void> {
  const body = await readBody(req);
  if (req.method === "POST") proxy.posts += 1;
  if (req.method === "DELETE") proxy.deletes += 1;
  if (/"method"\s*:\s*"initialize"/.test(body.toString())) proxy.initializes += 1;
  if (proxy.resetToolCalls > 0 && /"method"\s*:\s*"tools\/call"/.test(body.toString())) {
    proxy.resetToolCalls -= 1;
    req.socket.destroy();
    return;
  }
  const upstream = httpRequest(
    {
      host: "127.0.0.1",
      port: upstreamPort,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: `127.0.0.1:${upstreamPort}` },
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on("error", () => {
    if (!res.headersSent) res.writeHead(502).end();
    else res.destroy();
  });
  res.on("close", () => upstream.destroy());
  upstream.end(body);
}

/** A port nothing listens on (connections are refused). */
export const closedPort = freePort;

/** A TCP server that accepts connections and never answers: a hung server. */
export async function startBlackHole(): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
