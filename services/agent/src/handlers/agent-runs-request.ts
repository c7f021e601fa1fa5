import { type AgentRunsRequest, type AgentRunsResponse, ErrorType, ServiceError } from "@toolmesh/schema";
import type { RunStore } from "../run-store/index.js";

/** Reads recorded runs: `get` one by run_id (with its steps), or `list` the latest. */
export function createRunsHandler(store: RunStore) {
  return async (request: AgentRunsRequest): Promise<Partial<AgentRunsResponse>> => {
    if (request.operation === "list") return { runs: await store.list(request.limit) };
    if (!request.run_id) throw new ServiceError(ErrorType.badRequest, "'get' needs a run_id");
    const run = await store.get(request.run_id);
    if (!run) throw new ServiceError(ErrorType.notFound, `no agent run '${request.run_id}'`);
    return { run };
  };
}
