import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BaseEnv } from "@toolmesh/base";
import { MemoryBus } from "@toolmesh/base/testing";
import { ReplyError } from "@toolmesh/pulsar";
import {
  AgentResponse,
  type AgentRequestWire,
  AgentRunsResponse,
  type AgentRunsRequest,
  ServiceName,
  ToolRegistryRequest,
  type ToolRegistryResponse,
  requestTopic,
  responseTopic,
} from "@toolmesh/schema";
import { ScriptedLlm } from "@toolmesh/test-support";
import { buildAgent } from "../../src/app.js";
import { loadEnv } from "../../src/env.js";
import { Shouter, shoutRevision } from "./shouter.js";

const quiet = BaseEnv.parse({ HTTP_PORT: "0" });

/** A tool registry on the bus that knows one revision (shoutRevision, the current one). */
async function fakeRegistry(bus: MemoryBus): Promise<void> {
  await bus.runtime("fake-registry", quiet).serve({
    requestTopic: requestTopic(ServiceName.toolRegistry),
    responseTopic: responseTopic(ServiceName.toolRegistry),
    subscription: "fake-registry",
    requestSchema: ToolRegistryRequest,
    errorReply: (error): Partial<ToolRegistryResponse> => ({ error }),
    handler: async (request): Promise<Partial<ToolRegistryResponse>> => {
      const wanted = request.operation === "current" ? shoutRevision.revision_number : request.revision_number;
      if (wanted !== shoutRevision.revision_number) throw new ReplyError("not-found", `no catalog revision ${wanted}`);
      return { revision: shoutRevision };
    },
  });
}

/**
 * The agent as main.ts builds it, on the in-memory bus (no broker): a fake registry serving shoutRevision, the
 * Shouter tool service, and a ScriptedLlm in this process (loopback HTTP) as its model — or no model at all.
 */
export async function agentOnBus({ withLlm = true } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "agent-unit-"));
  const llm = new ScriptedLlm();
  if (withLlm) await llm.start();
  const bus = new MemoryBus();
  await fakeRegistry(bus);
  await new Shouter().start(bus.runtime("shouter", quiet), { announce: false });
  const env = loadEnv({ HTTP_PORT: "0", AGENT_DATA_DIR: dataDir, ...(withLlm ? { OPENAI_BASE_URL: llm.url, OPENAI_MODEL: "scripted" } : {}) });
  await buildAgent(bus.runtime("agent", env), env);
  const agent = await bus.requester(ServiceName.agent, AgentResponse, 10_000);
  const runs = await bus.requester(ServiceName.agentRuns, AgentRunsResponse);
  return {
    llm,
    /** Every message of one run, the last one (end_of_dialog) included. */
    ask: async (request: AgentRequestWire | Record<string, unknown>): Promise<AgentResponse[]> => {
      const replies: AgentResponse[] = [];
      for await (const reply of agent.stream(request, { isLast: (r) => r.end_of_dialog })) replies.push(reply);
      return replies;
    },
    runs: (request: Partial<AgentRunsRequest>) => runs.request(request),
    close: async () => {
      await bus.close();
      await llm.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type AgentOnBus = Awaited<ReturnType<typeof agentOnBus>>;
