import type { ServerResponse } from "node:http";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Logger } from "pino";
import type { CatalogRevision } from "@toolmesh/schema";
import type { McpMetrics } from "./metrics.js";
import type { SessionCatalog } from "./session-catalog.js";

/** One MCP session: its transport, its SDK server and the catalog view it is pinned to (or follows). */
export interface McpSession {
  id: string;
  transport: StreamableHTTPServerTransport;
  server: Server;
  catalog: SessionCatalog;
  lastUsed: number;
  /** Server-to-client streams (GET) open now: a client listening for notifications is not idle. */
  openStreams: number;
}

export interface SessionRegistryOptions {
  idleMs: number;
  maxSessions: number;
  metrics: McpMetrics;
  logger: Logger;
}

/**
 * The sessions this instance holds (Streamable HTTP sessions live in memory: replicas need routing by the
 * `Mcp-Session-Id` header). Idle sessions (no request, no open stream) are closed; latest-following sessions are moved to each new
 * revision and sent `notifications/tools/list_changed` when their tool list changed.
 */
export class SessionRegistry {
  private readonly sessions = new Map<string, McpSession>();
  private readonly sweeper: NodeJS.Timeout;
  private inFlight = 0;
  private drained: (() => void) | undefined;
  private closing = false;

  constructor(private readonly options: SessionRegistryOptions) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(options.idleMs, 60_000)).unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  get full(): boolean {
    return this.sessions.size >= this.options.maxSessions;
  }

  /** True once shutdown began: no new session opens here. */
  get shuttingDown(): boolean {
    return this.closing;
  }

  /** Counts a POST until its response ends, so that shutdown lets it finish. */
  track(response: ServerResponse): void {
    this.inFlight++;
    response.once("close", () => {
      if (--this.inFlight === 0) this.drained?.();
    });
  }

  add(session: McpSession): void {
    this.sessions.set(session.id, session);
    this.options.metrics.sessions.set(this.sessions.size);
    this.options.logger.info(
      {
        session: session.id,
        revision: session.catalog.revisionNumber,
        pin: session.catalog.mode,
        group: session.catalog.group ?? undefined,
      },
      "session opened",
    );
  }

  /** The session, marked as used now; undefined when unknown (closed, expired, or another instance's). */
  get(id: string): McpSession | undefined {
    const session = this.sessions.get(id);
    if (session) session.lastUsed = Date.now();
    return session;
  }

  remove(id: string | undefined): void {
    if (id === undefined || !this.sessions.delete(id)) return;
    this.options.metrics.sessions.set(this.sessions.size);
    this.options.logger.info({ session: id }, "session closed");
  }

  /** Moves every latest-following session to `revision`; those whose tools changed are told. */
  follow(revision: CatalogRevision): void {
    for (const session of this.sessions.values()) {
      if (!session.catalog.follow(revision)) continue;
      session.server.sendToolListChanged().catch((err: unknown) => {
        this.options.logger.debug({ session: session.id, reason: (err as Error).message }, "list_changed not delivered");
      });
    }
  }

  /**
   * Closes every session once the requests in flight have been answered: a rolling restart then cuts no
   * tool call short. A call still running at `windDown` (a little before SHUTDOWN_TIMEOUT_MS runs out) is
   * answered "cut short" by its handler, which listens to the same signal; that answer gets up to
   * `flushMs` to go out before the sessions close (closing a session ends its streams unanswered).
   */
  async closeAll(windDown: AbortSignal, flushMs = 500): Promise<void> {
    this.closing = true;
    clearInterval(this.sweeper);
    if (this.inFlight > 0) {
      this.options.logger.info({ requests: this.inFlight }, "letting the requests in flight finish before closing the sessions");
      await this.drainedOr(windDown);
      if (this.inFlight > 0) {
        this.options.logger.warn({ requests: this.inFlight }, "shutdown timeout near: answering the requests in flight as cut short");
        await this.drainedOr(AbortSignal.timeout(flushMs));
      }
    }
    await Promise.allSettled([...this.sessions.values()].map((s) => s.transport.close()));
    this.sessions.clear();
    this.options.metrics.sessions.set(0);
  }

  /** Resolves when no request is in flight, or when `signal` aborts, whichever comes first. */
  private drainedOr(signal: AbortSignal): Promise<void> {
    if (this.inFlight === 0 || signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        signal.removeEventListener("abort", done);
        this.drained = undefined;
        resolve();
      };
      this.drained = done;
      signal.addEventListener("abort", done, { once: true });
    });
  }

  private sweep(): void {
    const cutoff = Date.now() - this.options.idleMs;
    for (const session of this.sessions.values()) {
      if (session.openStreams === 0 && session.lastUsed < cutoff) void session.transport.close().catch(() => undefined);
    }
  }
}
