import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";
import { DeadlineError, McpServerError, failureReason, isSessionFailure, refusedBeforeDispatch, suggestsSseServer } from "./mcp-errors.js";
import type { SessionMetrics, SessionTransport } from "./metrics.js";
import type { ToolCallResult } from "./result.js";
import type { McpServerTarget } from "./server-config.js";

export interface SessionPoolOptions {
  connectTimeoutMs: number;
  callTimeoutMs: number;
  logger: Logger;
  metrics?: SessionMetrics;
  clientInfo?: { name: string; version: string };
}

/** What tools/list reports per tool, as the list-tools reply carries it. */
export interface ListedTool {
  name: string;
  description: string;
  inputSchema: Tool["inputSchema"];
}

interface Session {
  readonly client: Client;
  readonly target: McpServerTarget;
  readonly transport: SessionTransport;
  /** `terminate`: end the session on the server too (DELETE), when we leave it rather than lose it. */
  readonly close: (options: { terminate: boolean }) => Promise<void>;
  /** Some request succeeded on it: a later HTTP refusal means the server forgot it. */
  proven: boolean;
}

interface Entry {
  opening: Promise<Session>;
  session?: Session;
}

function serverError(target: McpServerTarget, what: string, err: unknown): McpServerError {
  return new McpServerError(`MCP server at ${target.label}: ${what} failed: ${failureReason(err)}`, isSessionFailure(err), { cause: err });
}

/**
 * One MCP session per server (url + transport + resolved headers), shared by every call and every config
 * entry that points there. Sessions open on first use (Streamable HTTP, or SSE for older servers), are
 * dropped when they fail and reopened by the next call. Each server has its own entry and promise, so a
 * slow or dead server never holds up calls to another, and a failed connect is forgotten at once.
 */
export class McpSessionPool {
  private readonly entries = new Map<string, Entry>();
  private closed = false;

  constructor(private readonly options: SessionPoolOptions) {}

  /** Servers with a session open or opening. */
  get size(): number {
    return this.entries.size;
  }

  callTool(target: McpServerTarget, name: string, args: Record<string, unknown>): Promise<ToolCallResult> {
    return this.run(target, `tools/call '${name}'`, async (client) => {
      const result = await client.callTool({ name, arguments: args }, undefined, { timeout: this.options.callTimeoutMs });
      return result as ToolCallResult;
    });
  }

  /** Every tool the server offers, following pagination. */
  listTools(target: McpServerTarget): Promise<ListedTool[]> {
    return this.run(target, "tools/list", async (client) => {
      const tools: ListedTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: this.options.callTimeoutMs });
        for (const tool of page.tools) tools.push({ name: tool.name, description: tool.description ?? "", inputSchema: tool.inputSchema });
        cursor = page.nextCursor;
      } while (cursor);
      return tools;
    });
  }

  /** Closes the sessions whose key is not in `keep` (their config entries changed url, token or headers). */
  async retain(keep: ReadonlySet<string>): Promise<void> {
    const stale = [...this.entries.keys()].filter((key) => !keep.has(key));
    await Promise.all(stale.map((key) => this.retire(key, "no config entry uses it any more")));
  }

  /** Closes every session (shutdown); later calls fail. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.entries.keys()].map((key) => this.retire(key, "shutting down")));
  }

  private async run<T>(target: McpServerTarget, what: string, operation: (client: Client) => Promise<T>): Promise<T> {
    const session = await this.acquire(target);
    try {
      return await this.attempt(session, operation);
    } catch (err) {
      if (!isSessionFailure(err)) throw serverError(target, what, err);
      const wasProven = session.proven;
      this.drop(session, err);
      if (!(wasProven && refusedBeforeDispatch(err))) throw serverError(target, what, err);
      this.options.logger.info({ server: target.label, reason: failureReason(err) }, "server forgot the session; reconnecting once");
      const fresh = await this.acquire(target);
      try {
        return await this.attempt(fresh, operation);
      } catch (retryErr) {
        if (isSessionFailure(retryErr)) this.drop(fresh, retryErr);
        throw serverError(target, what, retryErr);
      }
    }
  }

  private async attempt<T>(session: Session, operation: (client: Client) => Promise<T>): Promise<T> {
    try {
      const result = await operation(session.client);
      session.proven = true;
      return result;
    } catch (err) {
      // A JSON-RPC error reply still shows the session works.
      if (!isSessionFailure(err)) session.proven = true;
      throw err;
    }
  }

  private acquire(target: McpServerTarget): Promise<Session> {
    if (this.closed) return Promise.reject(new McpServerError("the mcp-tool service is shutting down", true));
    const existing = this.entries.get(target.key);
    if (existing) return existing.opening;
    const entry = {} as Entry;
    entry.opening = this.open(target).then(
      async (session) => {
        if (this.entries.get(target.key) === entry) {
          entry.session = session;
          return session;
        }
        // Retired while connecting (config changed, or shutdown): not ours to keep.
        await session.close({ terminate: true });
        throw new McpServerError(`MCP server at ${target.label}: the session was closed while connecting (config changed or shutting down)`, true);
      },
      (err: unknown) => {
        // Not cached: the next call tries again.
        if (this.entries.get(target.key) === entry) this.entries.delete(target.key);
        throw err;
      },
    );
    this.entries.set(target.key, entry);
    return entry.opening;
  }

  private async open(target: McpServerTarget): Promise<Session> {
    const first: SessionTransport = target.transport === "sse" ? "sse" : "streamable-http";
    try {
      return await this.connect(target, first);
    } catch (err) {
      if (target.transport !== "auto" || !suggestsSseServer(err)) throw serverError(target, `connect (${first})`, err);
      this.options.logger.info({ server: target.label, reason: failureReason(err) }, "Streamable HTTP refused; trying SSE");
      try {
        return await this.connect(target, "sse");
      } catch (sseErr) {
        const reasons = `Streamable HTTP: ${failureReason(err)}; SSE fallback: ${failureReason(sseErr)}`;
        throw new McpServerError(`MCP server at ${target.label}: connect failed: ${reasons}`, true, { cause: sseErr });
      }
    }
  }

  private async connect(target: McpServerTarget, kind: SessionTransport): Promise<Session> {
    const url = new URL(target.url);
    const requestInit: RequestInit = { headers: target.headers };
    const transport = kind === "sse" ? new SSEClientTransport(url, { requestInit }) : new StreamableHTTPClientTransport(url, { requestInit });
    const client = new Client(this.options.clientInfo ?? { name: "toolmesh-mcp-tool", version: "0.1.0" }, { capabilities: {} });
    const deadline = this.options.connectTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        void client.close().catch(() => undefined);
        reject(new DeadlineError(deadline));
      }, deadline);
    });
    try {
      // The SDK's own timeout covers only initialize; ours also covers the HTTP connect and transport start.
      await Promise.race([client.connect(transport, { timeout: deadline }), timedOut]);
    } finally {
      clearTimeout(timer);
    }

    let closed = false;
    const session: Session = {
      client,
      target,
      transport: kind,
      proven: false,
      close: async ({ terminate }) => {
        if (closed) return;
        closed = true;
        this.options.metrics?.closed(target.label, kind);
        if (terminate && transport instanceof StreamableHTTPClientTransport) {
          // Lets the server free the session now; a server without sessions answers 405, which is fine.
          const grace = new Promise((resolve) => setTimeout(resolve, 2_000).unref());
          await Promise.race([transport.terminateSession().catch(() => undefined), grace]);
        }
        await client.close().catch(() => undefined);
      },
    };
    client.onclose = () => this.drop(session, new Error("the connection closed"));
    client.onerror = (err) => {
      // An SSE session lives on its one event stream: when that breaks, the session is gone. Streamable
      // HTTP reports trouble on its optional GET stream here while requests keep working.
      if (kind === "sse") this.drop(session, err);
      else this.options.logger.debug({ server: target.label, reason: failureReason(err) }, "transport reported an error");
    };
    this.options.metrics?.opened(target.label, kind);
    this.options.logger.info({ server: target.label, transport: kind, serverInfo: client.getServerVersion() }, "MCP session opened");
    return session;
  }

  /** Takes a failed session out of the pool and closes it; the next call opens a new one. */
  private drop(session: Session, err: unknown): void {
    const entry = this.entries.get(session.target.key);
    if (entry?.session === session) {
      this.entries.delete(session.target.key);
      this.options.logger.info({ server: session.target.label, reason: failureReason(err) }, "MCP session dropped");
    }
    void session.close({ terminate: false });
  }

  private async retire(key: string, reason: string): Promise<void> {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    // Still connecting: acquire() sees the entry is gone and closes the session when it arrives.
    if (!entry.session) return;
    this.options.logger.info({ server: entry.session.target.label, reason }, "MCP session closed");
    await entry.session.close({ terminate: true });
  }
}
