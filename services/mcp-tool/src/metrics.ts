import { Counter, Gauge, type Registry } from "prom-client";

export type SessionTransport = "streamable-http" | "sse";

/** Session counts per server (redacted url), so reuse is measurable: calls grow, sessions opened do not. */
export class SessionMetrics {
  private readonly openedTotal: Counter<"server">;
  private readonly open: Gauge<"server" | "transport">;
  private readonly retriedTotal: Counter<"server">;

  constructor(registry: Registry) {
    this.openedTotal = new Counter({
      name: "toolmesh_mcp_sessions_opened_total",
      help: "MCP sessions opened (initialize handshakes completed), by server",
      labelNames: ["server"],
      registers: [registry],
    });
    this.open = new Gauge({
      name: "toolmesh_mcp_sessions_open",
      help: "MCP sessions open now, by server and transport",
      labelNames: ["server", "transport"],
      registers: [registry],
    });
    this.retriedTotal = new Counter({
      name: "toolmesh_mcp_calls_retried_total",
      help: "MCP requests the server refused before running them (it forgot the session) and that were retried once on a new session, by server",
      labelNames: ["server"],
      registers: [registry],
    });
  }

  opened(server: string, transport: SessionTransport): void {
    this.openedTotal.inc({ server });
    this.open.inc({ server, transport });
  }

  closed(server: string, transport: SessionTransport): void {
    this.open.dec({ server, transport });
  }

  retried(server: string): void {
    this.retriedTotal.inc({ server });
  }
}
