import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentOnBus, agentOnBus } from "../support/agent-on-bus.js";

// The agent as main.ts builds it, on the in-memory bus: a run streams its thought, observation and answer,
// calls a real tool service on the bus, and is recorded for agent-runs. The model is a scripted
// OpenAI-compatible server in this process (loopback HTTP); no broker.
let agent: AgentOnBus;

beforeAll(async () => {
  agent = await agentOnBus();
});
afterAll(() => agent.close());

describe("agent on the in-memory bus", () => {
  it("streams thought, observation and answer of one run on the current revision, and records it", async () => {
    agent.llm.script("shout hello", [{ tool_calls: [{ name: "shout", arguments: { text: "hello" } }] }, { content: "It says HELLO!" }]);
    const replies = await agent.ask({ question: "shout hello", user: "alice", streaming: true });

    expect(replies.map((r) => [r.message_type, r.content, r.end_of_dialog])).toEqual([
      ["thought", 'calling shout {"text":"hello"}', false],
      ["observation", "HELLO!", false],
      ["answer", "It says HELLO!", true],
    ]);
    const runId = replies[0]!.run_id!;
    expect(replies.every((r) => r.run_id === runId && r.catalog_revision === 3 && r.error === null)).toBe(true);
    expect(agent.llm.requestsFor("shout hello")[0]!.tools?.map((t) => t.function.name)).toEqual(["shout"]);

    const { run, error } = await agent.runs({ operation: "get", run_id: runId });
    expect(error).toBeNull();
    expect(run).toMatchObject({
      run_id: runId,
      user: "alice",
      question: "shout hello",
      status: "answered",
      answer: "It says HELLO!",
      catalog_revision: 3,
      tools_offered: ["shout"],
    });
    expect(run!.steps.map((s) => s.kind)).toEqual(["thought", "tool-call", "observation", "answer"]);
    expect(run!.steps[1]).toMatchObject({ tool: "shout", arguments: { text: "hello" } });
    expect((await agent.runs({ operation: "list" })).runs.map((r) => r.run_id)).toContain(runId);
  });

  it("lists a long question shortened to 500 characters (never half an emoji); get returns it whole", async () => {
    // 499 characters, then an emoji whose two UTF-16 halves straddle the cut, then 3 MB more.
    const question = `${"q".repeat(499)}😀${"long question ".repeat(220_000)}`;
    agent.llm.script(question, [{ content: "short answer" }]);
    const [answer] = await agent.ask({ question });
    const runId = answer!.run_id!;
    const listed = (await agent.runs({ operation: "list" })).runs.find((r) => r.run_id === runId)!;
    expect(listed.question).toBe(`${"q".repeat(499)}…`);
    expect((await agent.runs({ operation: "get", run_id: runId })).run!.question).toBe(question);
  });

  it("answers a request that does not stream with the final message only, on the pinned revision", async () => {
    agent.llm.script("shout quietly", [{ tool_calls: [{ name: "shout", arguments: { text: "quiet" } }] }, { content: "It says QUIET!" }]);
    const replies = await agent.ask({ question: "shout quietly", catalog_revision: 3 });
    expect(replies).toHaveLength(1);
    expect(replies[0]).toMatchObject({
      message_type: "answer",
      content: "It says QUIET!",
      end_of_dialog: true,
      catalog_revision: 3,
      error: null,
    });
  });

  it("offers only the tools of the requested groups", async () => {
    agent.llm.script("no tools here", [{ content: "none" }]);
    await agent.ask({ question: "no tools here", group: ["other"] });
    expect(agent.llm.requestsFor("no tools here")[0]!.tools ?? []).toEqual([]);
  });
});
