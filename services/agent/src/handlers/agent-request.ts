import { randomUUID } from "node:crypto";
import type { RequestContext } from "@toolmesh/pulsar";
import { type AgentRequest, type AgentResponse, inToolGroups, ErrorType, ServiceError } from "@toolmesh/schema";
import type { AgentLoop } from "../agent-loop.js";
import type { RunUsage } from "../llm/usage-tally.js";
import type { CatalogClient } from "../catalog-client.js";
import type { RunStore } from "../run-store/index.js";

type Reply = Partial<AgentResponse> & Pick<AgentResponse, "message_type">;

export interface AgentHandlerDeps {
  catalog: CatalogClient;
  store: RunStore;
  /** Null when no LLM is configured: every run is then answered with a clear error. */
  loop: AgentLoop | null;
}

export const NO_LLM_MESSAGE = "no LLM configured: set OPENAI_BASE_URL and OPENAI_MODEL for the agent service";

/** TrustGraph's usage fields of a run's last message. */
const usageFields = (usage: RunUsage | undefined) =>
  usage ? { in_token: usage.inTokens, out_token: usage.outTokens, model: usage.model } : {};

function errorReply(
  message: string,
  runId: string | null,
  revision: number | null,
  usage?: RunUsage,
  type: string = ErrorType.agentError,
): Reply {
  return {
    message_type: "error",
    content: message,
    end_of_message: true,
    end_of_dialog: true,
    error: { type, message },
    run_id: runId,
    catalog_revision: revision,
    ...usageFields(usage),
  };
}

/**
 * One agent request -> one run on one catalog revision (the pinned one, or the registry's current one).
 * Streaming requests get every thought and observation as it happens; others only the final message.
 */
export function createAgentHandler({ catalog, store, loop }: AgentHandlerDeps) {
  return (request: AgentRequest, context?: Pick<RequestContext, "trace">): AsyncIterable<Reply> =>
    (async function* () {
      if (!loop) {
        yield errorReply(NO_LLM_MESSAGE, null, request.catalog_revision);
        return;
      }
      let revision;
      try {
        const whole = await catalog.revision(request.catalog_revision, context?.trace.context);
        // The request's `group` narrows the tools offered (and recorded) to those groups.
        revision = { ...whole, tools: whole.tools.filter((tool) => inToolGroups(tool, request.group)) };
      } catch (err) {
        // A registry that answered `unavailable` (its database away, say): the caller may ask again.
        const type = err instanceof ServiceError && err.type === ErrorType.unavailable ? ErrorType.unavailable : ErrorType.agentError;
        yield errorReply(`cannot get the tool catalog: ${(err as Error).message}`, null, request.catalog_revision, undefined, type);
        return;
      }
      const runId = randomUUID();
      await store.begin({
        run_id: runId,
        user: request.user,
        question: request.question,
        catalog_revision: revision.revision_number,
        catalog_hash: revision.content_hash,
        tools_offered: revision.tools.map((t) => t.name),
      });
      const run = { runId, user: request.user, question: request.question, revision, trace: context?.trace.context };
      for await (const event of loop.run(run)) {
        const last = event.kind === "answer" || event.kind === "error";
        if (!request.streaming && !last) continue;
        if (event.kind === "error") {
          yield errorReply(event.content, runId, revision.revision_number, event.usage, event.errorType);
          continue;
        }
        yield {
          message_type: event.kind,
          content: event.content,
          end_of_message: true,
          end_of_dialog: last,
          error: null,
          run_id: runId,
          catalog_revision: revision.revision_number,
          ...(event.kind === "answer" ? usageFields(event.usage) : {}),
        };
      }
    })();
}
