import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChatRequest, requestTopic } from "@toolmesh/test-support";
import { AgentSystem, jokeService, jokeTool } from "./system.js";

const system = new AgentSystem();
const PUN_CATS = "Here's a pun: my cat is a great DJ, he always brings the mewsic.";
const DAD_CATS = "Why don't cats play poker in the jungle? Too many cheetahs.";
const offered = (r: ChatRequest | undefined) => (r?.tools ?? []).map((t) => t.function.name).sort();
const lastTool = (r: ChatRequest) => [...r.messages].reverse().find((m) => m.role === "tool")?.content ?? "";
let revision1 = 0;

beforeAll(async () => {
  await system.start();
  revision1 = await system.putTools({ "tell-pun": jokeTool("tell-pun", "pun") }, { "joke-service": jokeService(system.jokeTopic) });
}, 120_000);
afterAll(() => system.stop());

describe("agent over the catalog, native tool calling", () => {
  it("calls a tool-service tool, answers, and records the run with its revision", async () => {
    system.llm.script("Tell me a cat pun", [
      { tool_calls: [{ name: "tell-pun", arguments: { topic: "cats" } }] },
      (r) => ({ content: `Here you go: ${lastTool(r)}` }),
    ]);
    const messages = await system.ask("Tell me a cat pun");
    expect(messages.map((m) => m.message_type)).toEqual(["thought", "observation", "answer"]);
    expect(messages[1]!.content).toBe(PUN_CATS);
    expect(messages[2]!.content).toBe(`Here you go: ${PUN_CATS}`);
    expect(new Set(messages.map((m) => m.catalog_revision))).toEqual(new Set([revision1]));

    const run = await system.run(messages[2]!.run_id!);
    expect(run).toMatchObject({
      status: "answered",
      user: "alice",
      question: "Tell me a cat pun",
      catalog_revision: revision1,
      answer: `Here you go: ${PUN_CATS}`,
      tools_offered: ["tell-pun"],
    });
    expect(run.steps.filter((s) => s.kind === "tool-call")).toEqual([
      expect.objectContaining({ tool: "tell-pun", arguments: { topic: "cats" } }),
    ]);
    const revision = await system.registry.request({ operation: "get-revision", revision_number: run.catalog_revision });
    expect(revision.revision?.content_hash).toBe(run.catalog_hash);
    expect(offered(system.llm.requestsFor("Tell me a cat pun")[0])).toEqual(revision.revision!.tools.map((t) => t.name).sort());
  });

  it("offers a tool registered meanwhile to the next run, but not to a run pinned to the old revision", async () => {
    const revision2 = await system.putTools({ "tell-dad-joke": jokeTool("tell-dad-joke", "dad-joke") });
    expect(revision2).toBeGreaterThan(revision1);
    system.llm.script("Which tools do you have", [{ content: "some" }]);
    const latest = await system.ask("Which tools do you have (latest)");
    const pinned = await system.ask("Which tools do you have (pinned)", { catalog_revision: revision1 });
    expect(offered(system.llm.requestsFor("(latest)")[0])).toEqual(["tell-dad-joke", "tell-pun"]);
    expect(offered(system.llm.requestsFor("(pinned)")[0])).toEqual(["tell-pun"]);
    expect(latest.at(-1)!.catalog_revision).toBe(revision2);
    expect((await system.run(pinned.at(-1)!.run_id!)).catalog_revision).toBe(revision1);
  });

  it("offers only the tools of the request's groups (a tool naming none is in 'default')", async () => {
    await system.putTools({ "tell-grouped": { ...jokeTool("tell-grouped", "one-liner"), group: ["jokes"] } });
    system.llm.script("Which tools by group", [{ content: "some" }]);
    const grouped = await system.ask("Which tools by group (jokes)", { group: ["jokes"] });
    await system.ask("Which tools by group (default)", { group: ["default"] });
    await system.ask("Which tools by group (all)", { group: null });
    expect(offered(system.llm.requestsFor("(jokes)")[0])).toEqual(["tell-grouped"]);
    expect(offered(system.llm.requestsFor("(default)")[0])).toEqual(["tell-dad-joke", "tell-pun"]);
    expect(offered(system.llm.requestsFor("(all)")[0])).toEqual(["tell-dad-joke", "tell-grouped", "tell-pun"]);
    expect((await system.run(grouped.at(-1)!.run_id!)).tools_offered).toEqual(["tell-grouped"]);
  });

  it("refuses a pinned tool the revision does not have", async () => {
    system.llm.script("Use the dad joke on revision one", [
      { tool_calls: [{ name: "tell-dad-joke", arguments: { topic: "cats" } }] },
      (r) => ({ content: `could not: ${lastTool(r)}` }),
    ]);
    const messages = await system.ask("Use the dad joke on revision one", { catalog_revision: revision1 });
    expect(messages[1]!.content).toBe("unknown tool 'tell-dad-joke'; available tools: tell-pun");
  });

  it("runs several tool calls of one turn, and reports each observation", async () => {
    system.llm.script("Two jokes about cats", [
      {
        tool_calls: [
          { name: "tell-pun", arguments: { topic: "cats" } },
          { name: "tell-dad-joke", arguments: { topic: "cats" } },
        ],
      },
      { content: "both told" },
    ]);
    const messages = await system.ask("Two jokes about cats");
    expect(messages.filter((m) => m.message_type === "observation").map((m) => m.content)).toEqual([PUN_CATS, DAD_CATS]);
  });

  it("turns bad arguments into an observation the model reads and corrects", async () => {
    system.llm.script("Pun with bad arguments", [
      { tool_calls: [{ name: "tell-pun", arguments: { subject: "cats" } }] },
      (r) =>
        lastTool(r).includes("invalid arguments for tell-pun")
          ? { tool_calls: [{ name: "tell-pun", arguments: { topic: "cats" } }] }
          : { content: "never validated" },
      (r) => ({ content: `fixed: ${lastTool(r)}` }),
    ]);
    const messages = await system.ask("Pun with bad arguments");
    const observations = messages.filter((m) => m.message_type === "observation").map((m) => m.content);
    expect(observations[0]).toMatch(/^invalid arguments for tell-pun: .*must have required property 'topic'/);
    expect(observations[1]).toBe(PUN_CATS);
    expect(messages.at(-1)!.content).toBe(`fixed: ${PUN_CATS}`);
  });

  it("reports a tool service that is not running as such, within the service check, and still finishes", async () => {
    await system.putTools(
      { absent: jokeTool("absent", "pun", "absent-service") },
      { "absent-service": { id: "absent-service", topic: "nobody-serves-this" } },
    );
    system.llm.script("Ask the absent tool", [
      { tool_calls: [{ name: "absent", arguments: { topic: "x" } }] },
      (r) => ({ content: `the tool is down (${lastTool(r).slice(0, 40)})` }),
    ]);
    const messages = await system.ask("Ask the absent tool");
    expect(messages[1]!.content).toMatch(
      /^tool absent is unavailable: its service is not running \(nothing consumes non-persistent:\/\/[^/]+\/request\/nobody-serves-this\)$/,
    );
    expect(messages.at(-1)!.message_type).toBe("answer");
    expect((await system.run(messages.at(-1)!.run_id!)).status).toBe("answered");
  });

  it("reports a tool service that takes the request and never answers as a timeout observation", async () => {
    // A consumer that swallows every request: the service runs, so the call waits out AGENT_TOOL_TIMEOUT_MS.
    const silent = await system.pulsar.subscribe(
      { topic: requestTopic("silent-service"), subscription: "silent-service", type: "Shared" },
      async () => undefined,
    );
    try {
      await system.putTools(
        { sleepy: jokeTool("sleepy", "pun", "silent-service") },
        { "silent-service": { id: "silent-service", topic: "silent-service" } },
      );
      system.llm.script("Ask the sleepy tool", [
        { tool_calls: [{ name: "sleepy", arguments: { topic: "x" } }] },
        (r) => ({ content: `the tool is slow (${lastTool(r).slice(0, 40)})` }),
      ]);
      const messages = await system.ask("Ask the sleepy tool");
      expect(messages[1]!.content).toMatch(/^tool sleepy failed: no reply on .*silent-service within 2000 ms/);
      expect(messages.at(-1)!.message_type).toBe("answer");
    } finally {
      await silent.close();
    }
  });

  it("ends a run that never answers at the iteration limit with a clear error", async () => {
    system.llm.script(
      "Loop forever",
      Array.from({ length: 12 }, () => ({ tool_calls: [{ name: "tell-pun", arguments: { topic: "loops" } }] })),
    );
    const messages = await system.ask("Loop forever");
    expect(messages.at(-1)).toMatchObject({
      message_type: "error",
      content: "stopped after 10 iterations without a final answer (AGENT_MAX_ITERATIONS)",
    });
    expect((await system.run(messages.at(-1)!.run_id!)).status).toBe("failed");
  });

  it("sends only the answer when not streaming", async () => {
    system.llm.script("Quiet pun", [{ tool_calls: [{ name: "tell-pun", arguments: { topic: "cats" } }] }, { content: "done quietly" }]);
    const replies: string[] = [];
    await system.agentClient.request(
      { question: "Quiet pun", streaming: false },
      { isLast: (r) => r.end_of_dialog, onReply: (r) => replies.push(r.message_type) },
    );
    expect(replies).toEqual(["answer"]);
  });

  it("reports an LLM failure and a malformed request as errors, and keeps serving", async () => {
    const failed = await system.ask("A question with no script");
    expect(failed.at(-1)).toMatchObject({ message_type: "error", content: expect.stringMatching(/^LLM call failed: 500/) });
    const bad = await system.agentClient.request({ user: "alice" });
    expect(bad).toMatchObject({ message_type: "error", end_of_dialog: true, error: { type: "bad-request" } });
    expect((await system.runs.request({ operation: "get", run_id: "nope" })).error?.type).toBe("not-found");
    system.llm.script("Still there?", [{ content: "yes" }]);
    expect((await system.ask("Still there?")).at(-1)!.content).toBe("yes");
    expect((await fetch(`${system.agent.url}/readyz`)).status).toBe(200);
  });
});
