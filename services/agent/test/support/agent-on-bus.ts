import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BaseEnv } from "@toolmesh/base";
import { FakeToolRegistry, MemoryBus, Shouter, shoutRevision } from "@toolmesh/base/testing";
import { AgentResponse, type AgentRequestWire, AgentRunsResponse, type AgentRunsRequest, ServiceName } from "@toolmesh/schema";
import { ScriptedLlm } from "@toolmesh/test-support";
import { buildAgent } from "../../src/app.js";
import { loadEnv } from "../../src/env.js";

/**
 * The agent as main.ts builds it, on the in-memory bus (no broker): a fake registry serving shoutRevision, the
 * Shouter tool service, and a ScriptedLlm in this process (loopback HTTP) as its model — or no model at all.
 */
export async function agentOnBus({ withLlm = true } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "agent-unit-"));
  const llm = new ScriptedLlm();
  if (withLlm) await llm.start();
  const bus = new MemoryBus();
  await FakeToolRegistry.start(bus, [shoutRevision]);
  await new Shouter().start(bus.runtime("shouter", BaseEnv.parse({ HTTP_PORT: "0" })), { announce: false });
  const env = loadEnv({
    HTTP_PORT: "0",
    AGENT_DATA_DIR: dataDir,
    ...(withLlm ? { OPENAI_BASE_URL: llm.url, OPENAI_MODEL: "scripted" } : {}),
  });
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
