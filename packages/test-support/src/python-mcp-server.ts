import { resolve } from "node:path";
import { REPO_ROOT } from "./broker.js";
import { ChildServer } from "./child-server.js";
import { pythonPeer } from "./python-peer.js";
import { freePort } from "./service-process.js";
import { waitFor } from "./wait.js";

const SCRIPT = resolve(REPO_ROOT, "packages/test-support/python/mcp_server.py");

export interface PythonMcpServerOptions {
  port?: number;
  /** The SDK's session limit: past it, opening a session answers 503. */
  maxSessions?: number;
  /** Only `Authorization: Bearer <token>` is let in (the SDK's bearer middleware; 401 otherwise). */
  token?: string;
  /**
   * An OAuth 2 protected resource instead: its protected-resource metadata names this issuer, and it takes
   * only RS256 JWTs from the issuer's JWKS, for its own URL (`aud`), with `scope` (default mcp:tools).
   */
  oauth?: { issuer: string; scope?: string };
  /** Extra environment, e.g. OTEL_EXPORTER_OTLP_ENDPOINT: the server then exports the MCP SDK's own spans. */
  env?: Record<string, string>;
}

/** What the server saw since it (re)started, from GET /control/stats. */
export interface PythonMcpServerStats {
  initializes: number;
  deletes: number;
  open_sessions: number;
  calls: string[];
  waiting: Record<string, number>;
}

/**
 * An MCP server built with the Python MCP SDK (packages/test-support/python/mcp_server.py, run in the
 * `mcp` peer venv): tools echo (`-> str`), plain, sleep, gate, picture (text + image), weather
 * (structured) and traceparent (the W3C `traceparent` header of the HTTP request that carried the call, or
 * "no traceparent header"). With OTEL_EXPORTER_OTLP_ENDPOINT in `env` it exports the spans the MCP SDK
 * makes for each request, continuing the trace of the request's `_meta.traceparent`. It can be killed and
 * started again on the same port.
 */
export class PythonMcpServer {
  private readonly process: ChildServer;

  private constructor(
    readonly port: number,
    options: PythonMcpServerOptions,
  ) {
    const args = [SCRIPT, "--port", String(port)];
    if (options.maxSessions !== undefined) args.push("--max-sessions", String(options.maxSessions));
    if (options.token !== undefined) args.push("--token", options.token);
    if (options.oauth) args.push("--oauth-issuer", options.oauth.issuer, ...(options.oauth.scope ? ["--scope", options.oauth.scope] : []));
    this.process = new ChildServer({
      command: pythonPeer("mcp"),
      args,
      ...(options.env ? { env: options.env } : {}),
      ready: `mcp-test-server listening on ${port}`,
      description: `Python MCP server on ${port}`,
    });
  }

  static async start(options: PythonMcpServerOptions = {}): Promise<PythonMcpServer> {
    const server = new PythonMcpServer(options.port ?? (await freePort()), options);
    await server.spawn();
    return server;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/mcp`;
  }

  get logs(): string {
    return this.process.logs;
  }

  spawn(): Promise<void> {
    return this.process.spawn();
  }

  /** Kills it at once (no goodbye to clients), as a crash would. */
  kill(): Promise<void> {
    return this.process.kill();
  }

  /** Kills it and starts a fresh process on the same port: every session it had is forgotten. */
  async restart(): Promise<void> {
    await this.kill();
    await this.spawn();
  }

  stop(): Promise<void> {
    return this.kill();
  }

  async stats(): Promise<PythonMcpServerStats> {
    const response = await fetch(`http://127.0.0.1:${this.port}/control/stats`);
    if (!response.ok) throw new Error(`stats: HTTP ${response.status}`);
    return (await response.json()) as PythonMcpServerStats;
  }

  /** Lets every `gate` call with this name (waiting now or later) answer. */
  async release(gate: string): Promise<void> {
    const response = await fetch(`http://127.0.0.1:${this.port}/control/release/${encodeURIComponent(gate)}`, { method: "POST" });
    if (!response.ok) throw new Error(`release ${gate}: HTTP ${response.status}`);
  }

  /** Waits until `count` calls are waiting at the gate `gate`. */
  async waitForGate(gate: string, count: number, timeoutMs = 15_000): Promise<void> {
    await waitFor(async () => ((await this.stats()).waiting[gate] ?? 0) >= count, {
      timeoutMs,
      description: `${count} calls waiting at gate '${gate}'`,
    });
  }
}
