import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * The api-gateway's REST contract, minimally, over real HTTP: `POST /api/v1/flow/{flow}/service/{service}`
 * and `POST /api/v1/config` (TrustGraph's paths), bearer auth, `{"error": {type, message}}` with
 * 400/401/404/504, an in-memory config service that answers like TrustGraph's (a missing key's value is
 * null, deleting one is a silent success, no `error` key on success), tool services routed by their
 * `tool-service` config key. Other services answer through handlers a test registers; one nobody answers
 * is a 504, as the gateway reports a request no service replied to.
 */
export interface RecordedRequest {
  flow: string;
  service: string;
  authorization: string | undefined;
  body: Record<string, unknown>;
}

export interface HttpReply {
  status: number;
  body: unknown;
  /** Sent as is instead of `body` (a proxy's HTML error page, say). */
  raw?: string;
}

export type ServiceHandler = (body: Record<string, unknown>) => HttpReply | Promise<HttpReply>;

const FIXED = ["config", "mcp-tool", "agent", "tool-registry"];
const ROUTE = /^\/api\/v1\/(?:flow\/([^/]+)\/service\/([^/]+)|(config))$/;

export const ok = (body: unknown): HttpReply => ({ status: 200, body });
export const gatewayError = (status: number, type: string, message: string): HttpReply => ({
  status,
  body: { error: { type, message } },
});

export class GatewayDouble {
  readonly requests: RecordedRequest[] = [];
  /** type -> key -> stored JSON string. */
  readonly config = new Map<string, Map<string, string>>();
  private readonly handlers = new Map<string, ServiceHandler>();
  private version = 0;

  private constructor(
    private readonly server: Server,
    readonly token: string | undefined,
  ) {}

  static async start(options: { token?: string } = {}): Promise<GatewayDouble> {
    const server = createServer();
    const double = new GatewayDouble(server, options.token);
    server.on("request", (req, res) => void double.serve(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return double;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Answers requests to `service` (mcp-tool, agent, or a tool service's id). */
  handle(service: string, handler: ServiceHandler): this {
    this.handlers.set(service, handler);
    return this;
  }

  /** Stores a config item directly, as if put earlier. */
  seed(type: string, key: string, value: unknown): this {
    this.typeMap(type).set(key, JSON.stringify(value));
    return this;
  }

  stored(type: string, key: string): unknown {
    const text = this.config.get(type)?.get(key);
    return text === undefined ? undefined : JSON.parse(text);
  }

  /** Requests to `service`, in order. */
  requestsTo(service: string): RecordedRequest[] {
    return this.requests.filter((r) => r.service === service);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const reply = await this.route(req, Buffer.concat(chunks).toString("utf8"));
    if (res.destroyed) return;
    if (reply.raw !== undefined) res.writeHead(reply.status, { "content-type": "text/html" }).end(reply.raw);
    else res.writeHead(reply.status, { "content-type": "application/json" }).end(JSON.stringify(reply.body));
  }

  private async route(req: IncomingMessage, text: string): Promise<HttpReply> {
    const match = ROUTE.exec((req.url ?? "").split("?")[0]!);
    if (req.method !== "POST" || !match) return gatewayError(404, "not-found", `no route ${req.method} ${req.url}`);
    if (this.token !== undefined && req.headers.authorization !== `Bearer ${this.token}`) {
      return gatewayError(401, "unauthorized", req.headers.authorization ? "invalid bearer token" : "missing bearer token");
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return gatewayError(400, "bad-request", "body is not JSON");
    }
    const flow = match[3] ? "" : decodeURIComponent(match[1]!);
    const service = match[3] ?? decodeURIComponent(match[2]!);
    this.requests.push({ flow, service, authorization: req.headers.authorization, body });
    if (service === "config") return ok(this.configReply(body));
    if (!FIXED.includes(service) && !this.config.get("tool-service")?.has(service)) {
      return gatewayError(404, "unknown-service", `unknown service '${service}'`);
    }
    const handler = this.handlers.get(service);
    if (!handler) return gatewayError(504, "timeout", `no reply on non-persistent://tg/response/${service} within 30000 ms`);
    return handler(body);
  }

  private typeMap(type: string): Map<string, string> {
    let map = this.config.get(type);
    if (!map) this.config.set(type, (map = new Map()));
    return map;
  }

  private configReply(body: Record<string, unknown>): Record<string, unknown> {
    const keys = (body.keys ?? []) as { type: string; key: string }[];
    const values = (body.values ?? []) as { type: string; key: string; value: string }[];
    const type = body.type as string | undefined;
    const reply = (extra: Record<string, unknown>) => ({ version: this.version, values: [], directory: [], config: {}, ...extra });
    switch (body.operation) {
      case "get":
        return reply({ values: keys.map((k) => ({ ...k, value: this.config.get(k.type)?.get(k.key) ?? null })) });
      case "list":
        return reply({ directory: [...(this.config.get(type ?? "")?.keys() ?? [])] });
      case "getvalues":
        return reply({ values: [...(this.config.get(type ?? "") ?? [])].map(([key, value]) => ({ type, key, value })) });
      case "put":
        for (const v of values) this.typeMap(v.type).set(v.key, v.value);
        return reply({ version: ++this.version });
      case "delete":
        for (const k of keys) this.config.get(k.type)?.delete(k.key);
        return reply({ version: ++this.version });
      default:
        return reply({ error: { type: "bad-request", message: `unknown operation '${String(body.operation)}'` } });
    }
  }
}
