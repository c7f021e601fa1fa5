import { AgentRunsResponse, ServiceName } from "@toolmesh/schema";
import type { Command } from "commander";
import type { CliContext } from "../context.js";
import { formatTable } from "../format.js";
import { parseReply } from "../gateway.js";
import { positiveInt } from "../options.js";

/** `tg show-run RUN_ID`: a recorded run — its catalog revision, every step, the outcome. */
export function registerShowRun(program: Command, context: CliContext): void {
  program
    .command("show-run")
    .description("print a recorded agent run: its catalog revision, tools offered, every step, the outcome")
    .argument("<run-id>", "the run id (printed by `tg agent`)")
    .action(async (runId: string, _opts: unknown, command: Command) => {
      const reply = parseReply(
        AgentRunsResponse,
        await context.gateway(command).call(ServiceName.agentRuns, { operation: "get", run_id: runId }),
        ServiceName.agentRuns,
      );
      const run = reply.run!;
      context.print(`run ${run.run_id}: ${run.status}`);
      context.print(`user: ${run.user || "(none)"}  question: ${run.question}`);
      context.print(
        `catalog revision ${run.catalog_revision} (${run.catalog_hash})  tools offered: ${run.tools_offered.join(", ") || "none"}`,
      );
      context.print(`started ${run.started_at}  finished ${run.finished_at ?? "-"}`);
      for (const step of run.steps) {
        const timing = step.duration_ms !== null ? ` (${Math.round(step.duration_ms)} ms)` : "";
        context.print(`${String(step.seq).padStart(3)} ${step.kind}${step.tool ? ` [${step.tool}]` : ""}${timing}: ${step.content}`);
      }
      if (run.answer !== null) context.print(`answer: ${run.answer}`);
      if (run.error !== null) context.print(`error: ${run.error}`);
    });

  program
    .command("list-runs")
    .description("list the latest agent runs")
    .option("-n, --limit <n>", "how many", "20")
    .action(async (opts: { limit: string }, command: Command) => {
      const limit = positiveInt("--limit", opts.limit);
      const reply = parseReply(
        AgentRunsResponse,
        await context.gateway(command).call(ServiceName.agentRuns, { operation: "list", limit }),
        ServiceName.agentRuns,
      );
      context.print(
        formatTable(
          ["run", "status", "revision", "started", "question"],
          reply.runs.map((r) => [r.run_id, r.status, String(r.catalog_revision), r.started_at, r.question]),
        ),
      );
    });
}
