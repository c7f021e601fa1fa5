import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";
import { type TraceContext, injectTraceContext } from "@toolmesh/base";
import { beforeDeadline, remainingMs } from "./deadline.js";
import {
  DeadlineError,
  McpServerError,
  type SentCredentials,
  failureKind,
  failureReason,
  isTimeout,
  sessionVerdict,
  suggestsSseServer,
} from "./mcp-errors.js";
import type { SessionMetrics, SessionTransport } from "./metrics.js";
import type { ToolCallResult } from "./result.js";
import type { McpServerTarget } from "./server-config.js";
import { McpSession } from "./session.js";

export interface SessionPoolOptions {
  connectTimeoutMs: number;
  /** The time one request may take in all: opening a session if needed, the call, one retry. */
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

interface Entry {
  opening: Promise<McpSession>;
  session?: McpSession;
}

const sentBy = (target: McpServerTarget): SentCredentials => ({
  token: "authorization" in target.headers,
  oauth2: target.oauth2 !== undefined,
});

/** The error a caller gets: a timeout says how long it waited, anything else what failed and why. */
function describeFailure(target: McpServerTarget, what: string, err: unknown): McpServerError {
  const message =
    err instanceof DeadlineError
      ? `MCP server at ${target.label} did not answer ${what} within ${err.ms} ms`
      : `MCP server at ${target.label}: ${what} failed: ${failureReason(err, sentBy(target))}`;
  return new McpServerError(message, failureKind(err), { cause: err });
}

/**
 * One MCP session per server (url + transport + resolved headers), shared by every call and every config
 * entry that points there. A session opens on first use (Streamable HTTP, or SSE for older servers) and
 * once for all the calls waiting on it. A failure only takes the session out when it is about the session
 * (see sessionVerdict): a timeout or an error reply stays the call's own. A session taken out is ended on
 * the server once its calls in flight settle; calls the server refused before running them (it forgot the
 * session, e.g. after a restart) are retried once on the one new session.
 */
export class McpSessionPool {
  private readonly entries = new Map<string, Entry>();
  private readonly ending = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly options: SessionPoolOptions) {}

  /** Servers with a session open or opening. */
  get size(): number {
    return this.entries.size;
  }

  /** The deadline of a request that starts now: MCP_CALL_TIMEOUT_MS from now. */
  deadline(): number {
    return Date.now() + this.options.callTimeoutMs;
  }

  /**
   * `trace`: the span of the call, continued by the server: its W3C context goes in `params._meta`
   * (`traceparent`, `tracestate`: MCP's place for it since the 2026-07-28 revision) and, by the session's
   * fetch, in the HTTP headers too, for servers traced at the HTTP layer.
   */
  callTool(
    target: McpServerTarget,
    name: string,
    args: Record<string, unknown>,
    deadline = this.deadline(),
    trace?: TraceContext,
  ): Promise<ToolCallResult> {
    const meta = trace ? injectTraceContext<Record<string, string>>({}, trace) : {};
    const params = { name, arguments: args, ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}) };
    return this.run(target, `tools/call '${name}'`, deadline, async (client, timeout) => {
      const result = await client.callTool(params, undefined, { timeout });
      return result as ToolCallResult;
    });
  }

  /** Every tool the server offers, following pagination. */
  listTools(target: McpServerTarget, deadline = this.deadline()): Promise<ListedTool[]> {
    return this.run(target, "tools/list", deadline, async (client) => {
      const tools: ListedTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: remainingMs(deadline) });
        for (const tool of page.tools) tools.push({ name: tool.name, description: tool.description ?? "", inputSchema: tool.inputSchema });
        cursor = page.nextCursor;
      } while (cursor);
      return tools;
    });
  }

  /** Closes the sessions whose key is not in `keep` (their config entries changed url, token or headers). */
  async retain(keep: ReadonlySet<string>): Promise<void> {
    const stale = [...this.entries.keys()].filter((key) => !keep.has(key));
    await Promise.all(stale.map((key) => this.retireKey(key, "no config entry uses it any more")));
  }

  /** Closes every session (shutdown), after the calls on them settle; later calls fail. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.entries.keys()].map((key) => this.retireKey(key, "shutting down")));
    await Promise.all([...this.ending]);
  }

  private async run<T>(
    target: McpServerTarget,
    what: string,
    deadline: number,
    operation: (client: Client, timeoutMs: number) => Promise<T>,
  ): Promise<T> {
    const session = await this.acquire(target, deadline);
    try {
      return await this.attempt(session, deadline, operation);
    } catch (err) {
      const verdict = sessionVerdict(err);
      if (verdict !== "call") this.retire(session, failureReason(err, sentBy(target)));
      if (verdict !== "not-dispatched") throw describeFailure(target, what, err);
      this.options.metrics?.retried(target.label);
      this.options.logger.info(
        { server: target.label, reason: failureReason(err) },
        "the server did not take the request; retrying once on a new session",
      );
      const fresh = await this.acquire(target, deadline);
      try {
        return await this.attempt(fresh, deadline, operation);
      } catch (retryErr) {
        if (sessionVerdict(retryErr) !== "call") this.retire(fresh, failureReason(retryErr, sentBy(target)));
        throw describeFailure(target, what, retryErr);
      }
    }
  }

  private async attempt<T>(
    session: McpSession,
    deadline: number,
    operation: (client: Client, timeoutMs: number) => Promise<T>,
  ): Promise<T> {
    try {
      return await session.use((client) => operation(client, remainingMs(deadline)));
    } catch (err) {
      // The SDK's timeout reports the time that was left; the caller's question is the whole budget.
      throw isTimeout(err) ? new DeadlineError(this.options.callTimeoutMs) : err;
    }
  }

  /** The server's session, opening it (once, for every caller waiting) when there is none. */
  private acquire(target: McpServerTarget, deadline: number): Promise<McpSession> {
    if (this.closed) return Promise.reject(new McpServerError("the mcp-tool service is shutting down", "transport"));
    const entry = this.entries.get(target.key) ?? this.startOpening(target);
    return beforeDeadline(entry.opening, deadline, () => {
      const ms = this.options.callTimeoutMs;
      return new McpServerError(`MCP server at ${target.label} did not answer within ${ms} ms (its session was still opening)`, "timeout");
    });
  }

  private startOpening(target: McpServerTarget): Entry {
    const entry = {} as Entry;
    entry.opening = this.open(target).then(
      (session) => {
        if (this.entries.get(target.key) === entry) {
          entry.session = session;
          return session;
        }
        // Retired while connecting (config changed, or shutdown): not ours to keep.
        this.track(session.retire());
        throw new McpServerError(
          `MCP server at ${target.label}: the session was closed while connecting (config changed or shutting down)`,
          "transport",
        );
      },
      (err: unknown) => {
        // Not cached: the next call tries again.
        if (this.entries.get(target.key) === entry) this.entries.delete(target.key);
        throw err;
      },
    );
    // Every caller may have given up (deadline) before the opening settles.
    entry.opening.catch(() => undefined);
    this.entries.set(target.key, entry);
    return entry;
  }

  private async open(target: McpServerTarget): Promise<McpSession> {
    const first: SessionTransport = target.transport === "sse" ? "sse" : "streamable-http";
    try {
      return await this.connect(target, first);
    } catch (err) {
      if (target.transport !== "auto" || !suggestsSseServer(err)) throw describeFailure(target, `connect (${first})`, err);
      this.options.logger.info({ server: target.label, reason: failureReason(err) }, "Streamable HTTP refused; trying SSE");
      try {
        return await this.connect(target, "sse");
      } catch (sseErr) {
        const reasons = `Streamable HTTP: ${failureReason(err)}; SSE fallback: ${failureReason(sseErr, sentBy(target))}`;
        throw new McpServerError(`MCP server at ${target.label}: connect failed: ${reasons}`, failureKind(sseErr), { cause: sseErr });
      }
    }
  }

  private connect(target: McpServerTarget, kind: SessionTransport): Promise<McpSession> {
    return McpSession.open(target, kind, {
      connectTimeoutMs: this.options.connectTimeoutMs,
      logger: this.options.logger,
      metrics: this.options.metrics,
      clientInfo: this.options.clientInfo ?? { name: "toolmesh-mcp-tool", version: "0.1.0" },
      onLost: (session, reason) => this.retire(session, reason),
    });
  }

  /** Takes a session out of the pool (if it is still the server's current one); the next call opens a new one. */
  private retire(session: McpSession, reason: string): void {
    const entry = this.entries.get(session.target.key);
    if (entry?.session === session) {
      this.entries.delete(session.target.key);
      this.options.logger.info({ server: session.target.label, reason }, "MCP session dropped");
    }
    this.track(session.retire());
  }

  private async retireKey(key: string, reason: string): Promise<void> {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    // Still connecting: startOpening sees the entry is gone and retires the session when it arrives.
    if (!entry.session) return;
    this.options.logger.info({ server: entry.session.target.label, reason }, "MCP session closed");
    await this.track(entry.session.retire());
  }

  private track(ended: Promise<void>): Promise<void> {
    this.ending.add(ended);
    void ended.finally(() => this.ending.delete(ended));
    return ended;
  }
}
