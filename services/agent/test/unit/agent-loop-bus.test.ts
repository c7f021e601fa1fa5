import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BaseEnv, type ServiceRuntime } from "@toolmesh/base";
import { MemoryBus, Shouter, shoutRevision } from "@toolmesh/base/testing";
import { type CatalogTool, ErrorType, McpToolRequest, type McpToolResponse, ServiceError, ServiceName, queueTopic } from "@toolmesh/schema";
import { type AgentEvent, AgentLoop } from "../../src/agent-loop.js";
import type { ChatMessage, ChatModel, Completion, CompletionOptions, ToolSpec } from "../../src/llm/chat-model.js";
import { RunEnds } from "../../src/run-ends.js";
import { type RunStore, SqliteRunStore } from "../../src/run-store/index.js";
import { ToolInvoker } from "../../src/tool-invoker.js";
import { requestTopic, responseTopic, waitFor } from "@toolmesh/test-support";

// The agent loop end to end in one process: a scripted model, a real tool service and the ToolInvoker
// talking over the in-memory bus, and the run recorded in a real RunStore.

/** Answers from a script, one completion per turn, and keeps what it was sent. */
type Turn = Pick<Completion, "content" | "toolCalls"> & Partial<Completion>;
class ScriptedModel implements ChatModel {
  readonly seen: { messages: ChatMessage[]; tools: ToolSpec[] | undefined }[] = [];
  constructor(private readonly turns: Turn[]) {}
  async complete(messages: ChatMessage[], { tools }: CompletionOptions = {}): Promise<Completion> {
    this.seen.push({ messages: structuredClone(messages), tools });
    const turn = this.turns.shift();
    if (!turn) throw new Error("the script has no more turns");
    return { usage: null, model: "scripted", ...turn };
  }
}

const revision = shoutRevision;

const bus = new MemoryBus();
const dataDir = mkdtempSync(join(tmpdir(), "agent-loop-unit-"));
let runtime: ServiceRuntime;
let invoker: ToolInvoker;
let store: RunStore;

beforeAll(async () => {
  const env = BaseEnv.parse({ HTTP_PORT: "0" });
  runtime = bus.runtime("shouter", env);
  await new Shouter().start(runtime, { announce: false });
  invoker = new ToolInvoker({ pulsar: bus.client(), topics: bus.topics, timeoutMs: 2_000 });
  store = SqliteRunStore.open(dataDir, "unit-instance");
});
afterAll(async () => {
  await invoker.close();
  await bus.close();
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The loop under test: native tool calling, the bus's tool service and the shared store. */
const loopOf = (model: ChatModel, windDown?: AbortSignal) =>
  new AgentLoop({
    model,
    invoker,
    store,
    ends: new RunEnds(store, pino({ level: "silent" })),
    mode: "native",
    maxIterations: 5,
    logger: pino({ level: "silent" }),
    ...(windDown ? { windDown } : {}),
  });

describe("AgentLoop on the in-memory bus", () => {
  it("reports bad arguments to the model, calls the tool with the corrected ones, records the run", async () => {
    const model = new ScriptedModel([
      { content: null, toolCalls: [{ id: "c1", name: "shout", arguments: '{"words": "hi"}' }], usage: { inTokens: 10, outTokens: 2 } },
      { content: null, toolCalls: [{ id: "c2", name: "shout", arguments: '{"text": "hi"}' }], usage: { inTokens: 12, outTokens: 3 } },
      { content: "It says HI!", toolCalls: [], usage: { inTokens: 20, outTokens: 4 }, model: "m-2" },
    ]);
    const loop = loopOf(model);
    await store.begin({
      run_id: "r1",
      user: "alice",
      question: "shout hi",
      catalog_revision: 3,
      catalog_hash: "h3",
      tools_offered: ["shout"],
    });
    const events: AgentEvent[] = [];
    for await (const event of loop.run({ runId: "r1", user: "alice", question: "shout hi", revision })) events.push(event);

    // The answer says what the run's three completions used, summed, and the model that answered last.
    expect(events.at(-1)).toEqual({ kind: "answer", content: "It says HI!", usage: { inTokens: 42, outTokens: 9, model: "m-2" } });
    const observations = events.filter((e) => e.kind === "observation").map((e) => e.content);
    expect(observations).toHaveLength(2);
    expect(observations[0]).toMatch(/text/); // names the missing or unexpected property
    expect(observations[1]).toBe("HI!"); // the tool's reply, with the revision's config value
    expect(model.seen[0]!.tools?.map((t) => t.name)).toEqual(["shout"]);
    const toolMessages = model.seen[2]!.messages.filter((m) => m.role === "tool");
    expect(toolMessages.map((m) => (m as { content: string }).content)).toEqual(observations);

    const run = (await store.get("r1"))!;
    expect(run.status).toBe("answered");
    expect(run.answer).toBe("It says HI!");
  });

  it("records the run answered before it hands the answer on (a process killed after sending keeps it)", async () => {
    const loop = loopOf(new ScriptedModel([{ content: "kept", toolCalls: [] }]));
    await store.begin({ run_id: "r3", user: "carol", question: "?", catalog_revision: 3, catalog_hash: "h3", tools_offered: ["shout"] });
    // The consumer sends each event as a reply: what the store holds when the answer comes out is what a
    // SIGKILL right after that reply would leave.
    const statusWhenYielded: string[] = [];
    for await (const event of loop.run({ runId: "r3", user: "carol", question: "?", revision })) {
      if (event.kind === "answer") statusWhenYielded.push((await store.get("r3"))!.status);
    }
    expect(statusWhenYielded).toEqual(["answered"]);
  });

  it("leaves the token counts unknown (null) when the model server reports no usage", async () => {
    const loop = loopOf(new ScriptedModel([{ content: "no counts", toolCalls: [] }]));
    await store.begin({ run_id: "r4", user: "dan", question: "?", catalog_revision: 3, catalog_hash: "h3", tools_offered: ["shout"] });
    const events: AgentEvent[] = [];
    for await (const event of loop.run({ runId: "r4", user: "dan", question: "?", revision })) events.push(event);
    expect(events).toEqual([{ kind: "answer", content: "no counts", usage: { inTokens: null, outTokens: null, model: "scripted" } }]);
  });

  it("ends a run waiting on the model as unavailable when the instance winds down, aborts the call, and records it failed", async () => {
    const windDown = new AbortController();
    let callSignal: AbortSignal | undefined;
    const hanging: ChatModel = {
      complete: (_messages, options) => {
        callSignal = options?.signal;
        return new Promise(() => {});
      },
    };
    await store.begin({ run_id: "r5", user: "eve", question: "?", catalog_revision: 3, catalog_hash: "h3", tools_offered: ["shout"] });
    const events: AgentEvent[] = [];
    const running = (async () => {
      for await (const event of loopOf(hanging, windDown.signal).run({ runId: "r5", user: "eve", question: "?", revision }))
        events.push(event);
    })();
    await new Promise((r) => setTimeout(r, 20));
    expect(events).toEqual([]);
    expect(callSignal?.aborted).toBe(false);
    windDown.abort();
    await running;
    // The LLM call is aborted, not left running on the model server.
    expect(callSignal?.aborted).toBe(true);
    expect(events).toEqual([
      {
        kind: "error",
        content: expect.stringMatching(/^the agent instance is stopping and cut this run short .*SHUTDOWN_TIMEOUT_MS.*; ask again$/),
        errorType: "unavailable",
        usage: { inTokens: null, outTokens: null, model: null },
      },
    ]);
    expect(await store.get("r5")).toMatchObject({ status: "failed", error: expect.stringContaining("cut this run short") });
    // A run after the wind-down is cut short at once.
    await store.begin({ run_id: "r6", user: "eve", question: "?", catalog_revision: 3, catalog_hash: "h3", tools_offered: ["shout"] });
    const after: AgentEvent[] = [];
    for await (const event of loopOf(new ScriptedModel([{ content: "late", toolCalls: [] }]), windDown.signal).run({
      runId: "r6",
      user: "eve",
      question: "?",
      revision,
    }))
      after.push(event);
    expect(after).toMatchObject([{ kind: "error", errorType: "unavailable" }]);
  });

  it("adds nothing to a run cut short when the call it left in flight comes back later", async () => {
    const windDown = new AbortController();
    let answerLate: (completion: Completion) => void = () => {};
    const late: ChatModel = { complete: () => new Promise((resolve) => (answerLate = resolve)) };
    await store.begin({ run_id: "r7", user: "eve", question: "?", catalog_revision: 3, catalog_hash: "h3", tools_offered: ["shout"] });
    const running = (async () => {
      for await (const _event of loopOf(late, windDown.signal).run({ runId: "r7", user: "eve", question: "?", revision }));
    })();
    await new Promise((r) => setTimeout(r, 20));
    windDown.abort();
    await running;
    answerLate({ content: "too late", toolCalls: [], usage: null, model: "scripted" });
    await new Promise((r) => setTimeout(r, 50));
    const run = (await store.get("r7"))!;
    expect(run.status).toBe("failed");
    expect(run.steps.map((step) => step.kind)).toEqual(["error"]);
  });

  it("aborts a text-completion tool's LLM call when the instance winds down", async () => {
    const windDown = new AbortController();
    let toolCallSignal: AbortSignal | undefined;
    const hangingCompletions: ChatModel = {
      complete: (_messages, options) => {
        toolCallSignal = options?.signal;
        return new Promise(() => {});
      },
    };
    const completionInvoker = new ToolInvoker({ pulsar: bus.client(), topics: bus.topics, timeoutMs: 2_000, model: hangingCompletions });
    const summarise: CatalogTool = {
      tool_id: "summarise",
      name: "summarise",
      description: "Summarises a text",
      parameters_schema: { type: "object", properties: { question: { type: "string" } } },
      binding: { kind: "text-completion" },
      source: "config",
      content_hash: "s1",
    };
    const model = new ScriptedModel([
      { content: null, toolCalls: [{ id: "c1", name: "summarise", arguments: '{"question": "long text"}' }] },
    ]);
    const loop = new AgentLoop({
      model,
      invoker: completionInvoker,
      store,
      ends: new RunEnds(store, pino({ level: "silent" })),
      mode: "native",
      maxIterations: 5,
      logger: pino({ level: "silent" }),
      windDown: windDown.signal,
    });
    await store.begin({ run_id: "r8", user: "eve", question: "?", catalog_revision: 3, catalog_hash: "h3", tools_offered: ["summarise"] });
    const events: AgentEvent[] = [];
    const running = (async () => {
      for await (const event of loop.run({ runId: "r8", user: "eve", question: "?", revision: { ...revision, tools: [summarise] } }))
        events.push(event);
    })();
    await waitFor(() => toolCallSignal !== undefined, { description: "the text-completion's LLM call" });
    expect(toolCallSignal!.aborted).toBe(false);
    windDown.abort();
    await running;
    expect(toolCallSignal!.aborted).toBe(true);
    expect(events.at(-1)).toMatchObject({ kind: "error", errorType: "unavailable" });
    await completionInvoker.close();
  });

  it("ends the run with an error event when the model fails, and records it", async () => {
    const loop = loopOf(new ScriptedModel([]));
    await store.begin({ run_id: "r2", user: "bob", question: "?", catalog_revision: 3, catalog_hash: "h3", tools_offered: ["shout"] });
    const events: AgentEvent[] = [];
    for await (const event of loop.run({ runId: "r2", user: "bob", question: "?", revision })) events.push(event);
    expect(events).toEqual([
      { kind: "error", content: "LLM call failed: the script has no more turns", usage: { inTokens: null, outTokens: null, model: null } },
    ]);
    expect(await store.get("r2")).toMatchObject({ status: "failed", error: "LLM call failed: the script has no more turns" });
  });

  it("a run whose database goes away before its answer is recorded: answered unavailable, its end written once it is back", async () => {
    // The shared store, its writes failing while `down` (as reportUnreachableDatabase answers a lost PostgreSQL).
    let down = false;
    const unreachable = "the database cannot be reached (ECONNREFUSED); retry shortly";
    const flaky = new Proxy(store, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) =>
          down && (property === "step" || property === "finish")
            ? Promise.reject(new ServiceError(ErrorType.unavailable, unreachable))
            : (value as (...a: unknown[]) => unknown).apply(target, args);
      },
    });
    const ends = new RunEnds(flaky, pino({ level: "silent" }));
    const script = new ScriptedModel([
      { content: null, toolCalls: [{ id: "c1", name: "shout", arguments: '{"text": "hi"}' }] },
      { content: "It says HI!", toolCalls: [] },
    ]);
    // The database goes away while the model writes its answer.
    const model: ChatModel = {
      complete: async (messages, options) => {
        if (script.seen.length === 1) down = true;
        return script.complete(messages, options);
      },
    };
    const loop = new AgentLoop({ model, invoker, store: flaky, ends, mode: "native", maxIterations: 5, logger: pino({ level: "silent" }) });
    await store.begin({ run_id: "r9", user: "fay", question: "?", catalog_revision: 3, catalog_hash: "h3", tools_offered: ["shout"] });
    const events: AgentEvent[] = [];
    for await (const event of loop.run({ runId: "r9", user: "fay", question: "?", revision })) events.push(event);
    expect(events.at(-1)).toMatchObject({ kind: "error", content: unreachable, errorType: "unavailable" });
    expect(await store.get("r9")).toMatchObject({ status: "running" });
    expect(ends.pending).toBe(1);

    await ends.retry();
    expect(ends.pending).toBe(1);
    down = false;
    await ends.retry();
    expect(ends.pending).toBe(0);
    expect(await store.get("r9")).toMatchObject({ status: "failed", error: unreachable });
  });
});

describe("ToolInvoker and MCP-tool gateways", () => {
  /** An MCP-tool gateway on the bus that says which one it is. */
  const gateway = (label: string, request: string, response: string) =>
    runtime.serve({
      requestTopic: request,
      responseTopic: response,
      subscription: `${label}-request`,
      requestSchema: McpToolRequest,
      errorReply: (error): McpToolResponse => ({ error, text: null, object: null }),
      handler: async (req): Promise<McpToolResponse> => ({
        error: null,
        text: `${label}: ${req.name} ${JSON.stringify(req.parameters)}`,
        object: null,
      }),
    });
  const tool = (binding: CatalogTool["binding"]): CatalogTool => ({
    tool_id: "echo",
    name: "echo",
    description: "",
    parameters_schema: { type: "object" },
    binding,
    source: "config",
    content_hash: "e",
  });

  it("calls toolmesh's gateway by default, and the gateway an mcp-tool binding names (TrustGraph's queue ids)", async () => {
    await gateway("toolmesh", requestTopic(ServiceName.mcpTool), responseTopic(ServiceName.mcpTool));
    await gateway("trustgraph", queueTopic("request:tg:mcp-tool-tg"), queueTopic("response:tg:mcp-tool-tg"));
    expect(await invoker.invoke(tool({ kind: "mcp-tool", mcp_tool: "everything" }), { message: "hi" }, "u")).toBe(
      'toolmesh: everything {"message":"hi"}',
    );
    const routed = tool({
      kind: "mcp-tool",
      mcp_tool: "everything",
      request_topic: queueTopic("request:tg:mcp-tool-tg"),
      response_topic: queueTopic("response:tg:mcp-tool-tg"),
    });
    expect(await invoker.invoke(routed, { message: "hi" }, "u")).toBe('trustgraph: everything {"message":"hi"}');
  });
});
