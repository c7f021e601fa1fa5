import { type AgentRunSummary, type AgentRunsRequest, type AgentRunsResponse, ErrorType, ServiceError } from "@toolmesh/schema";
import type { RunStore } from "../run-store/index.js";

/**
 * How much of each question a `list` reply carries. A question may be megabytes (it is recorded whole, and
 * `get` returns it whole); 20 of them in one summary list would pass the broker's message limit, and the
 * list would answer `too-large` until those runs fell out of it.
 */
export const LISTED_QUESTION_CHARS = 500;

/** The question cut to LISTED_QUESTION_CHARS, never between the two halves of a surrogate pair, with "…". */
function listed(run: AgentRunSummary): AgentRunSummary {
  if (run.question.length <= LISTED_QUESTION_CHARS) return run;
  let end = LISTED_QUESTION_CHARS;
  const last = run.question.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return { ...run, question: `${run.question.slice(0, end)}…` };
}

/** Reads recorded runs: `get` one by run_id (with its steps), or `list` the latest (questions shortened). */
export function createRunsHandler(store: RunStore) {
  return async (request: AgentRunsRequest): Promise<Partial<AgentRunsResponse>> => {
    if (request.operation === "list") return { runs: (await store.list(request.limit)).map(listed) };
    if (!request.run_id) throw new ServiceError(ErrorType.badRequest, "'get' needs a run_id");
    const run = await store.get(request.run_id);
    if (!run) throw new ServiceError(ErrorType.notFound, `no agent run '${request.run_id}'`);
    return { run };
  };
}
