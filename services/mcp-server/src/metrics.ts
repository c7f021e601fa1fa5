import { Counter, Gauge, Histogram, type Registry } from "prom-client";

/** How a tools/call ended. */
export type CallOutcome = "ok" | "tool-error" | "timeout" | "not-running" | "invalid-arguments" | "unknown-tool" | "cut-short";

/** Per-tool call metrics and open sessions, on the service's registry (label `service=mcp-server`). */
export class McpMetrics {
  private readonly calls: Counter<"tool" | "outcome">;
  private readonly duration: Histogram<"tool">;
  readonly sessions: Gauge;

  constructor(registry: Registry) {
    this.calls = new Counter({
      name: "toolmesh_mcp_tool_calls_total",
      help: "MCP tools/call requests by tool and outcome (ok, tool-error, timeout, invalid-arguments, unknown-tool, cut-short: answered as the instance stopped)",
      labelNames: ["tool", "outcome"],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: "toolmesh_mcp_tool_call_duration_seconds",
      help: "Time from a tools/call request to its result, by tool",
      labelNames: ["tool"],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    });
    this.sessions = new Gauge({ name: "toolmesh_mcp_sessions_open", help: "MCP sessions open on this instance", registers: [registry] });
  }

  /** `tool` is only a catalog tool's name (unknown names are counted under "(unknown)": no label explosion). */
  called(tool: string, outcome: CallOutcome, durationMs: number): void {
    this.calls.inc({ tool, outcome });
    if (outcome !== "unknown-tool") this.duration.observe({ tool }, durationMs / 1000);
  }
}
