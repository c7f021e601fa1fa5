import { type ServiceRuntime, measuredStore } from "@toolmesh/base";
import {
  AgentRequest,
  AgentRunsRequest,
  type AgentRunsResponse,
  ErrorType,
  ServiceName,
  TenantPolicy,
  requestSubscription,
} from "@toolmesh/schema";
import { AgentInstance, newInstanceId } from "./agent-instance.js";
import { AgentLoop } from "./agent-loop.js";
import { CatalogClient } from "./catalog-client.js";
import type { AgentEnv } from "./env.js";
import { NO_LLM_MESSAGE, createAgentHandler } from "./handlers/agent-request.js";
import { createRunsHandler } from "./handlers/agent-runs-request.js";
import { OpenAiChatModel } from "./llm/chat-model.js";
import { RunEnds } from "./run-ends.js";
import { type RunStore, openRunStore } from "./run-store/index.js";
import { ToolInvoker } from "./tool-invoker.js";

export const SERVICE_ID = "agent";

/**
 * The agent: fails runs a dead instance left running, then serves agent requests (the LLM tool loop over
 * one catalog revision) and agent-runs reads (recorded runs).
 */
export async function buildAgent(runtime: ServiceRuntime, env: AgentEnv): Promise<{ store: RunStore }> {
  const store = measuredStore(await openRunStore(env, newInstanceId()), runtime.metrics);
  runtime.logger.info({ store: store.location, instance: store.instanceId }, "run store opened");
  const ends = new RunEnds(store, runtime.logger.child({ component: "runs" }));
  // Before serving: runs that a killed instance left `running` are failed (once its heartbeat is stale).
  const instance = new AgentInstance({
    store,
    ends,
    logger: runtime.logger.child({ component: "instance" }),
    heartbeatMs: env.AGENT_HEARTBEAT_INTERVAL_MS,
    staleAfterMs: env.AGENT_INSTANCE_STALE_MS,
  });
  await instance.start();
  const model =
    env.OPENAI_BASE_URL && env.OPENAI_MODEL
      ? new OpenAiChatModel({
          baseURL: env.OPENAI_BASE_URL,
          apiKey: env.OPENAI_API_KEY,
          model: env.OPENAI_MODEL,
          timeoutMs: env.AGENT_LLM_TIMEOUT_MS,
        })
      : undefined;
  if (!model) runtime.logger.warn(NO_LLM_MESSAGE);
  const invoker = new ToolInvoker({
    pulsar: runtime.pulsar,
    topics: runtime.topics,
    timeoutMs: env.AGENT_TOOL_TIMEOUT_MS,
    tenants: new TenantPolicy(runtime.topics.tenant, env.TOOLMESH_ALLOWED_TENANTS),
    toolClients: { idleMs: env.AGENT_TOOL_CLIENT_IDLE_MS, maxClients: env.AGENT_MAX_TOOL_CLIENTS },
    logger: runtime.logger.child({ component: "tools" }),
    ...(model ? { model } : {}),
  });
  const catalog = await CatalogClient.create(runtime.pulsar, runtime.topics, 10_000);
  const loop = model
    ? new AgentLoop({
        model,
        invoker,
        store,
        ends,
        mode: env.AGENT_TOOL_MODE,
        maxIterations: env.AGENT_MAX_ITERATIONS,
        logger: runtime.logger.child({ component: "loop" }),
        windDown: runtime.windDownSignal,
      })
    : null;

  runtime.onShutdown(async () => {
    await invoker.close();
    await catalog.close();
    await instance.stop();
    await store.close();
  });

  await runtime.serve({
    ...runtime.topics.pair(ServiceName.agent),
    subscription: requestSubscription(SERVICE_ID),
    requestSchema: AgentRequest,
    concurrency: env.AGENT_CONCURRENCY,
    errorType: ErrorType.agentError,
    errorReply: (error) => ({ message_type: "error" as const, content: error.message, end_of_message: true, end_of_dialog: true, error }),
    handler: createAgentHandler({ catalog, store, loop }),
    // Its runs wind down by themselves (the loop's windDown): recorded failed, then answered `unavailable`.
    windDown: null,
  });
  await runtime.serve({
    ...runtime.topics.pair(ServiceName.agentRuns),
    subscription: requestSubscription(`${SERVICE_ID}-runs`),
    requestSchema: AgentRunsRequest,
    errorReply: (error): Partial<AgentRunsResponse> => ({ error }),
    handler: createRunsHandler(store),
  });
  return { store };
}
