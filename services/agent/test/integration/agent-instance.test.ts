import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RequestClient } from "@toolmesh/pulsar";
import { AgentResponse } from "@toolmesh/schema";
import { serviceTopics, waitFor } from "@toolmesh/test-support";
import { AgentSystem, jokeService, jokeTool } from "./system.js";

// Issue 12 item 7: an agent killed mid-run used to leave the run `running` forever.

const system = new AgentSystem();
// Short beats so the test need not wait 30 s for the killed instance to count as gone.
// A 4 s shutdown timeout: a run still in hand is cut short 0.8 s before it.
const instanceEnv = { AGENT_HEARTBEAT_INTERVAL_MS: "250", AGENT_INSTANCE_STALE_MS: "1500", SHUTDOWN_TIMEOUT_MS: "4000" };
const QUESTION = "Hang in the middle of the run";

/** The instance id an agent process logged at start. */
function instanceOf(logs: string): string {
  const line = logs.split("\n").find((l) => l.includes('"agent instance started"'));
  if (!line) throw new Error(`the agent logged no instance id:\n${logs.slice(-2000)}`);
  return (JSON.parse(line) as { instance: string }).instance;
}

beforeAll(async () => {
  await system.start(instanceEnv);
  await system.putTools({ "tell-pun": jokeTool("tell-pun", "pun") }, { "joke-service": jokeService(system.jokeTopic) });
}, 120_000);
afterAll(() => system.stop());

describe("an agent instance killed mid-run", () => {
  it("leaves a run that the next agent process marks failed, with the reason, readable on agent-runs", async () => {
    system.llm.script(QUESTION, [() => new Promise(() => {})]);
    const asking = system.agentClient
      .request({ question: QUESTION, user: "alice", streaming: true }, { isLast: (r) => r.end_of_dialog, timeoutMs: 60_000 })
      .catch((err: unknown) => err);
    await waitFor(() => system.llm.requestsFor(QUESTION).length > 0, { description: "the run to reach the LLM" });
    const run = (await system.runs.request({ operation: "list" })).runs.find((r) => r.question === QUESTION)!;
    expect(run.status).toBe("running");

    const killedLogs = system.agent.logs;
    await system.agent.kill();
    await system.replaceAgent({ ...instanceEnv, OPENAI_BASE_URL: system.llm.url, OPENAI_MODEL: "scripted" });

    const failed = await waitFor(
      async () => {
        const now = await system.run(run.run_id);
        return now.status === "running" ? undefined : now;
      },
      { timeoutMs: 20_000, description: "the orphaned run to be failed" },
    );
    const killed = instanceOf(killedLogs);
    expect(instanceOf(system.agent.logs)).not.toBe(killed);
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatch(new RegExp(`^agent instance ${killed} stopped before the run finished \\(last heartbeat \\S+Z\\)$`));
    expect(failed.finished_at).not.toBeNull();
    expect(failed.steps.at(-1)).toMatchObject({ kind: "error", content: failed.error });
    expect(system.agent.logs).toContain('"msg":"failed a run left running by a gone agent instance"');

    // The new instance serves; the old caller got no answer from the dead one.
    system.llm.script("Are you back", [{ content: "yes" }]);
    expect((await system.ask("Are you back")).at(-1)!.content).toBe("yes");
    await system.agentClient.close();
    expect(await asking).toBeInstanceOf(Error);
  }, 90_000);
});

describe("an agent instance stopped (SIGTERM) mid-run, as a rolling deploy does", () => {
  it("answers the run unavailable before its shutdown timeout, records it failed, and exits 0", async () => {
    const question = "Wait for a model that never answers";
    system.llm.script(question, [() => new Promise(() => {})]);
    // The test above closed the system's agent client.
    const agent = await RequestClient.create(system.pulsar, {
      ...serviceTopics("agent"),
      responseSchema: AgentResponse,
      timeoutMs: 30_000,
    });
    const asking = agent.request({ question, user: "alice", streaming: true }, { isLast: (r) => r.end_of_dialog });
    await waitFor(() => system.llm.requestsFor(question).length > 0, { description: "the run to reach the LLM" });
    const stopped = performance.now();
    // Exit 0: the service stopped by itself, not killed by SHUTDOWN_TIMEOUT_MS (that exits 1).
    expect(await system.agent.stop()).toBe(0);
    expect(performance.now() - stopped).toBeLessThan(4_000);
    const last = await asking;
    expect(last.message_type).toBe("error");
    expect(last.error).toEqual({
      type: "unavailable",
      message: expect.stringMatching(/^the agent instance is stopping and cut this run short/),
    });

    await system.replaceAgent({ ...instanceEnv, OPENAI_BASE_URL: system.llm.url, OPENAI_MODEL: "scripted" });
    const run = await system.run(last.run_id!);
    expect(run).toMatchObject({ status: "failed", error: last.error!.message });
    await agent.close();
  }, 60_000);
});
