import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Logger } from "pino";
import { beforeDeadline } from "./deadline.js";
import { DeadlineError, SessionRetiredError, failureReason, isTimeout } from "./mcp-errors.js";
import type { SessionMetrics, SessionTransport } from "./metrics.js";
import type { McpOAuth2Credentials, McpServerTarget } from "./server-config.js";

const TRACE_KEYS = ["traceparent", "tracestate"] as const;

/** The W3C trace context a JSON-RPC request body carries in `params._meta` (see McpSessionPool.callTool). */
function traceMetaOf(body: string): Partial<Record<(typeof TRACE_KEYS)[number], unknown>> | undefined {
  try {
    const meta = (JSON.parse(body) as { params?: { _meta?: unknown } } | null)?.params?._meta;
    return meta && typeof meta === "object" ? meta : undefined;
  } catch {
    return undefined;
  }
}

/**
 * fetch that also sends a request's trace context (from its `_meta`) as `traceparent` / `tracestate`
 * headers, so a server traced at the HTTP layer joins the trace. The SDK builds each POST itself, so the
 * body is where the call's context can be found; bodies without one go out untouched.
 */
const fetchWithTraceHeaders: FetchLike = (url, init) => {
  const body = init?.body;
  const meta = typeof body === "string" && body.includes('"traceparent"') ? traceMetaOf(body) : undefined;
  if (!meta) return fetch(url, init);
  const headers = new Headers(init?.headers);
  for (const key of TRACE_KEYS) if (typeof meta[key] === "string") headers.set(key, meta[key]);
  return fetch(url, { ...init, headers });
};

/** The SDK's client-credentials provider for `credentials` (tokens kept for the session's life). */
function credentialsProvider(credentials: McpOAuth2Credentials): ClientCredentialsProvider {
  return new ClientCredentialsProvider({
    clientId: credentials.clientId,
    clientSecret: credentials.clientSecret,
    ...(credentials.scope ? { scope: credentials.scope } : {}),
    ...(credentials.issuer ? { expectedIssuer: credentials.issuer } : {}),
  });
}

/** How long ending a session may wait for the server to answer its DELETE. */
const TERMINATE_GRACE_MS = 2_000;

export interface SessionOpenOptions {
  connectTimeoutMs: number;
  logger: Logger;
  metrics?: SessionMetrics;
  clientInfo: { name: string; version: string };
  /** The transport closed or (SSE) broke by itself: the session is unusable. */
  onLost: (session: McpSession, reason: string) => void;
}

type Transport = StreamableHTTPClientTransport | SSEClientTransport;

/** Ends a session on the server (Streamable HTTP DELETE with its id, as the spec asks), then closes it here. */
async function endOnServerAndClose(transport: Transport, client: Client): Promise<void> {
  if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
    // A server without explicit session ends answers 405, which the SDK accepts; one that already forgot
    // the session answers 404. Either way there is nothing more to do.
    const grace = Date.now() + TERMINATE_GRACE_MS;
    await beforeDeadline(transport.terminateSession(), grace, () => new DeadlineError(TERMINATE_GRACE_MS)).catch(() => undefined);
  }
  await client.close().catch(() => undefined);
}

/**
 * One MCP session with one server, shared by many calls. Retiring it stops new calls at once; the calls
 * already on it finish (closing the client would fail them all with "connection closed"), and then the
 * session is ended on the server too, so a server's session limit never fills with sessions we left.
 */
export class McpSession {
  private inFlight = 0;
  private retired = false;
  private ending: Promise<void> | undefined;
  private settle: () => void = () => undefined;
  private readonly ended = new Promise<void>((resolve) => (this.settle = resolve));

  private constructor(
    readonly target: McpServerTarget,
    readonly kind: SessionTransport,
    private readonly client: Client,
    private readonly transport: Transport,
    private readonly metrics: SessionMetrics | undefined,
  ) {}

  /** Connects and initializes within `connectTimeoutMs`; a half-open session is ended on the server. */
  static async open(target: McpServerTarget, kind: SessionTransport, options: SessionOpenOptions): Promise<McpSession> {
    const url = new URL(target.url);
    const transportOptions = {
      requestInit: { headers: target.headers } satisfies RequestInit,
      fetch: fetchWithTraceHeaders,
      // The SDK runs the MCP authorization flow itself: on a 401 it finds the authorization server the
      // server names, gets a token with the client_credentials grant, and sends it from then on.
      ...(target.oauth2 ? { authProvider: credentialsProvider(target.oauth2) } : {}),
    };
    const transport =
      kind === "sse" ? new SSEClientTransport(url, transportOptions) : new StreamableHTTPClientTransport(url, transportOptions);
    const client = new Client(options.clientInfo, { capabilities: {} });
    const ms = options.connectTimeoutMs;
    try {
      // The SDK's own timeout covers only initialize; ours also covers the HTTP connect and transport start.
      await beforeDeadline(client.connect(transport, { timeout: ms }), Date.now() + ms, () => new DeadlineError(ms));
    } catch (err) {
      // initialize may have been answered (the server holds a session) before a later step failed.
      void endOnServerAndClose(transport, client);
      throw isTimeout(err) ? new DeadlineError(ms) : err;
    }

    const session = new McpSession(target, kind, client, transport, options.metrics);
    client.onclose = () => options.onLost(session, "the connection closed");
    client.onerror = (err) => {
      // An SSE session lives on its one event stream: when that breaks, the session is gone. Streamable
      // HTTP reports trouble on its optional GET stream (and on each failed POST) here while requests work.
      if (kind === "sse") options.onLost(session, failureReason(err));
      else options.logger.debug({ server: target.label, reason: failureReason(err) }, "transport reported an error");
    };
    options.metrics?.opened(target.label, kind);
    options.logger.info({ server: target.label, transport: kind, serverInfo: client.getServerVersion() }, "MCP session opened");
    return session;
  }

  /** Runs one request on the session, counted as in flight until it settles. */
  async use<T>(operation: (client: Client) => Promise<T>): Promise<T> {
    if (this.retired) throw new SessionRetiredError();
    this.inFlight += 1;
    try {
      return await operation(this.client);
    } finally {
      this.inFlight -= 1;
      if (this.retired && this.inFlight === 0) void this.end();
    }
  }

  /** Takes no new calls; ends once the calls in flight have settled. Resolves when it has ended. */
  retire(): Promise<void> {
    this.retired = true;
    if (this.inFlight === 0) void this.end();
    return this.ended;
  }

  private end(): Promise<void> {
    this.ending ??= (async () => {
      this.metrics?.closed(this.target.label, this.kind);
      this.client.onclose = undefined;
      await endOnServerAndClose(this.transport, this.client);
      this.settle();
    })();
    return this.ending;
  }
}
