import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ScriptedLlm, waitFor } from "@toolmesh/test-support";
import { OpenAiChatModel } from "../../src/llm/chat-model.js";

// The agent's model client (the official OpenAI SDK) against an OpenAI-compatible HTTP server.
const llm = new ScriptedLlm();
let model: OpenAiChatModel;

beforeAll(async () => {
  await llm.start();
  model = new OpenAiChatModel({ baseURL: llm.url, apiKey: "test", model: "scripted", timeoutMs: 30_000 });
});
afterAll(() => llm.close());

describe("OpenAiChatModel", () => {
  it("answers a completion with the counts and model the server reports", async () => {
    llm.script("What is 2+2?", [{ content: "4", usage: { prompt_tokens: 7, completion_tokens: 1 }, model: "scripted-2025" }]);
    const completion = await model.complete([{ role: "user", content: "What is 2+2?" }]);
    expect(completion).toEqual({ content: "4", toolCalls: [], usage: { inTokens: 7, outTokens: 1 }, model: "scripted-2025" });
  });

  it("closes the HTTP request when its signal aborts, so the model server can stop generating", async () => {
    const question = "Think about this forever";
    llm.script(question, [() => new Promise(() => {})]);
    const abort = new AbortController();
    const asking = model.complete([{ role: "user", content: question }], { signal: abort.signal });
    await waitFor(() => llm.requestsFor(question).length === 1, { description: "the request to reach the server" });
    expect(llm.abandonedFor(question)).toEqual([]);
    abort.abort();
    await expect(asking).rejects.toThrow(/abort/i);
    await waitFor(() => llm.abandonedFor(question).length === 1, { description: "the server to see the request closed" });
    // Aborted, not retried (the client is set to retry once).
    expect(llm.requestsFor(question)).toHaveLength(1);
  });
});
