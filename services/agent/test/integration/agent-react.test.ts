import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentSystem, jokeService, jokeTool } from "./system.js";

const system = new AgentSystem();

beforeAll(async () => {
  await system.start({ AGENT_TOOL_MODE: "react" });
  await system.putTools({ "tell-one-liner": jokeTool("tell-one-liner", "one-liner") }, { "joke-service": jokeService(system.jokeTopic) });
}, 120_000);
afterAll(() => system.stop());

describe("agent in ReAct text mode", () => {
  it("reads Thought/Action/Args, feeds the observation back, and takes the Final Answer", async () => {
    system.llm.script("One-liner about coffee", [
      { content: 'Thought: a one-liner fits\nAction: tell-one-liner\nArgs: {"topic": "coffee"}' },
      (r) => {
        const observation = r.messages.at(-1)?.content ?? "";
        return { content: `Thought: got it\nFinal Answer: ${observation.replace(/^Observation: /, "")}` };
      },
    ]);
    const messages = await system.ask("One-liner about coffee");
    expect(messages.map((m) => [m.message_type, m.content])).toEqual([
      ["thought", "a one-liner fits"],
      ["observation", "Decaf is just coffee with the point removed."],
      ["thought", "got it"],
      ["answer", "Decaf is just coffee with the point removed."],
    ]);
    const first = system.llm.requestsFor("One-liner about coffee")[0]!;
    expect(first.tools).toBeUndefined();
    expect(first.messages[0]!.content).toContain("- tell-one-liner: Tells a one-liner about a topic");
  });

  it("tells the model when its reply is in neither form, and lets it try again", async () => {
    system.llm.script("Unclear reply", [{ content: "hmm, maybe 4?" }, { content: "Thought: format fixed\nFinal Answer: 4" }]);
    const messages = await system.ask("Unclear reply");
    expect(messages[0]).toMatchObject({
      message_type: "observation",
      content: expect.stringMatching(/could not be read: expected 'Action:'/),
    });
    expect(messages.at(-1)).toMatchObject({ message_type: "answer", content: "4" });
  });
});

describe("agent with no LLM configured", () => {
  it("says so clearly, while the rest keeps working", async () => {
    await system.replaceAgent({});
    const messages = await system.ask("Anyone there?");
    expect(messages).toEqual([
      expect.objectContaining({
        message_type: "error",
        content: "no LLM configured: set OPENAI_BASE_URL and OPENAI_MODEL for the agent service",
        end_of_dialog: true,
      }),
    ]);
    expect((await fetch(`${system.agent.url}/readyz`)).status).toBe(200);
    expect((await system.registry.request({ operation: "current" })).revision?.tools.map((t) => t.name)).toEqual(["tell-one-liner"]);
  });
});
