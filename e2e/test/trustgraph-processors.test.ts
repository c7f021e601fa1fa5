import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { RequestClient } from "@toolmesh/pulsar";
import { AgentResponse, ConfigResponse, type ConfigValue, ToolRegistryResponse, queueTopic } from "@toolmesh/schema";
import { EverythingServer, PeerProcess, ScriptedLlm, topicClients, waitFor } from "@toolmesh/test-support";
import { z } from "zod";
import { serveLibrarianSaves, serveReactPrompts } from "./fixtures/react-agent-stand-ins.js";
import { TrustGraphTenant } from "./fixtures/trustgraph-tenant.js";

// Issue 14: TrustGraph 2.11.1's own processors (trustgraph-flow from PyPI, unchanged) run against toolmesh's
// config service, and toolmesh's agent uses a tool TrustGraph's mcp-tool processor serves.
//
// Tenant `tg`, not a per-file tenant: TrustGraph's processors load their configuration from
// `request:tg:config`, fixed in trustgraph-base, so toolmesh's config must serve tenant `tg` for them
// (claimTrustGraphTenant waits until no other config service does on this broker). The toolmesh services
// here keep their data in this test's own folders, and every queue this test adds has a unique name.
vi.hoisted(() => {
  process.env.TOOLMESH_TENANT = "tg";
});

const unique = randomUUID().slice(0, 8);
const JOKE_TOPIC = `joke-${unique}`;
/** TrustGraph's own joke-service (trustgraph-flow's example tool service) listens here. */
const TG_JOKE_TOPIC = `tg-joke-${unique}`;
/** TrustGraph's mcp-tool processor serves these (its flow's queues), apart from any other test's. */
const MCP_QUEUES = { request: `request:tg:mcp-tool-${unique}`, response: `response:tg:mcp-tool-${unique}` };
const PUN = "Here's a pun: my cat is a great DJ, he always brings the mewsic.";

const llm = new ScriptedLlm();
let tenant: TrustGraphTenant;
let everything: EverythingServer;
let tgMcpTool: PeerProcess;
let tgAgent: PeerProcess;
let tgJoke: PeerProcess;
let config: RequestClient<typeof ConfigResponse>;
let registry: RequestClient<typeof ToolRegistryResponse>;
let agent: RequestClient<typeof AgentResponse>;

const item = (type: string, key: string, value: unknown): ConfigValue => ({ type, key, value: JSON.stringify(value) });
const put = async (values: ConfigValue[]) => {
  const reply = await config.request({ operation: "put", values });
  expect(reply.error).toBeNull();
  return reply.version!;
};
const ask = async (question: string) => {
  const messages: AgentResponse[] = [];
  await agent.request(
    { question, user: "alice", streaming: true },
    { isLast: (r) => r.end_of_dialog, onReply: (r) => messages.push(r), timeoutMs: 30_000 },
  );
  return messages;
};
const startService = (service: string, env: Record<string, string> = {}) => tenant.service(service, env);

beforeAll(async () => {
  tenant = await TrustGraphTenant.start();
  everything = await EverythingServer.start("streamableHttp");
  await llm.start();
  await startService("config", { CONFIG_DATA_DIR: tenant.dataFolder("config") });
  await startService("joke-service", { JOKE_TOPIC, JOKE_ANNOUNCE: "false" });
  await startService("tool-registry", { REGISTRY_DATA_DIR: tenant.dataFolder("registry"), REGISTRY_REFRESH_INTERVAL_MS: "0" });
  await startService("agent", {
    AGENT_DATA_DIR: tenant.dataFolder("agent"),
    OPENAI_BASE_URL: llm.url,
    OPENAI_MODEL: "scripted",
    AGENT_TOOL_TIMEOUT_MS: "10000",
  });
  config = await tenant.client("config", ConfigResponse);
  registry = await tenant.client("tool-registry", ToolRegistryResponse);
  agent = await tenant.client("agent", AgentResponse);

  // As TrustGraph's docs start them (spec §7.2): the broker's binary port, no metrics server, no Loki.
  const flags = ["-p", tenant.pulsarHost, "--no-metrics", "--no-loki-enabled"];
  const bin = tenant.trustGraphBin;
  tgMcpTool = PeerProcess.start("trustgraph mcp-tool", join(bin, "mcp-tool"), flags);
  tgAgent = PeerProcess.start("trustgraph agent-manager-react", join(bin, "agent-manager-react"), flags);
  tgJoke = PeerProcess.start("trustgraph joke-service", join(bin, "joke-service"), [
    ...flags,
    "--id",
    `tg-joke-${unique}`,
    "--topic",
    TG_JOKE_TOPIC,
  ]);
}, 300_000);

afterAll(async () => {
  await Promise.all([tgMcpTool?.stop(), tgAgent?.stop(), tgJoke?.stop()]);
  await tenant?.stop();
  await llm.close();
  await everything?.stop();
});

describe("TrustGraph's processors on toolmesh's config service", () => {
  it("start: each loads its configuration (getkeys-all-ws, getvalues) and logs the version applied", async () => {
    const version = (await config.request({ operation: "config" })).version!;
    for (const processor of [tgMcpTool, tgAgent]) {
      const [line, applied] = await processor.waitForLog(/.*Applied startup config version (\d+)/);
      console.info(`${processor.label}: ${line}`);
      expect(Number(applied), line).toBeGreaterThanOrEqual(1);
      expect(Number(applied)).toBeLessThanOrEqual(version);
    }
    expect(tgMcpTool.logs).not.toMatch(/Config fetch failed/);
    expect(tgAgent.logs).not.toMatch(/Config fetch failed/);
  });

  it("follow a push: mcp-tool starts serving the flow config gives it, agent-manager-react reloads its tools", async () => {
    const mcpFrom = tgMcpTool.logs.length;
    const agentFrom = tgAgent.logs.length;
    const version = await put([
      item("mcp", "everything-echo", { url: everything.url, "remote-name": "echo" }),
      item("processor:mcp-tool", "default", { topics: MCP_QUEUES, parameters: {} }),
      item("tool-service", "joke-service", {
        id: "joke-service",
        "request-queue": `request:tg:${JOKE_TOPIC}`,
        "response-queue": `response:tg:${JOKE_TOPIC}`,
        "config-params": [{ name: "style", required: true }],
      }),
      item("tool", "tell-pun", {
        type: "tool-service",
        name: "tell-pun",
        description: "Tells a pun about a topic",
        service: "joke-service",
        style: "pun",
        arguments: [{ name: "topic", type: "string", description: "what the pun is about" }],
      }),
      item("tool", "echo", {
        type: "mcp-tool",
        name: "echo",
        description: "Echoes a message back",
        "mcp-tool": "everything-echo",
        "request-queue": MCP_QUEUES.request,
        "response-queue": MCP_QUEUES.response,
        arguments: [{ name: "message", type: "string", description: "what to echo" }],
      }),
    ]);
    await tgMcpTool.waitForLog(new RegExp(`Config notify v${version} types=`), { from: mcpFrom });
    const followed = [
      await tgMcpTool.waitForLog(new RegExp(`.*Got config version ${version} for workspace default`), { from: mcpFrom }),
      await tgMcpTool.waitForLog(/.*Started flow: default\/default/, { from: mcpFrom }),
      await tgAgent.waitForLog(new RegExp(`.*Loading configuration version ${version} for workspace default`), { from: agentFrom }),
      await tgAgent.waitForLog(/.*Loaded 1 tool-service configurations/, { from: agentFrom }),
      await tgAgent.waitForLog(/.*Loaded 2 tools for workspace default/, { from: agentFrom }),
      await tgAgent.waitForLog(/.*Tool configuration reloaded for workspace default\./, { from: agentFrom }),
    ];
    console.info(followed.map((m) => m[0]).join("\n"));
    expect(tgAgent.logs.slice(agentFrom)).not.toMatch(/Configuration reload failed/);
  });

  it("agent-manager-react loads a tool-service written in toolmesh's short form (a topic, no queues)", async () => {
    // It reads only request-queue/response-queue, and one tool-service without them failed its whole
    // reload (every tool of the workspace lost): config stores the short form with the queues it means.
    const agentFrom = tgAgent.logs.length;
    const version = await put([
      item("tool-service", "short-jokes", { id: "short-jokes", topic: JOKE_TOPIC, "config-params": [{ name: "style", required: false }] }),
      item("tool", "tell-short-joke", {
        type: "tool-service",
        name: "tell-short-joke",
        description: "Tells a joke about a topic",
        service: "short-jokes",
        style: "dad-joke",
        arguments: [{ name: "topic", type: "string", description: "what the joke is about" }],
      }),
    ]);
    await tgAgent.waitForLog(new RegExp(`.*Loading configuration version ${version} for workspace default`), { from: agentFrom });
    // Whichever comes first: the tools loaded, or the reload failed (it says why on the line before).
    const loaded = await tgAgent.waitForLog(/.*(?:Loaded (\d+) tools for workspace default|Configuration reload failed)/, {
      from: agentFrom,
    });
    console.info(loaded[0]);
    expect(tgAgent.logs.slice(agentFrom)).not.toMatch(/must define/);
    expect(Number(loaded[1])).toBe(3);
    const stored = await config.request({ operation: "get", keys: [{ type: "tool-service", key: "short-jokes" }] });
    expect(JSON.parse(stored.values![0]!.value!)).toMatchObject({
      "request-queue": `request:tg:${JOKE_TOPIC}`,
      "response-queue": `response:tg:${JOKE_TOPIC}`,
    });
  });
});

describe("TrustGraph's agent (agent-manager-react) with toolmesh's tools", () => {
  it("calls MCP tools through toolmesh's mcp-tool service, toolmesh's catalog among them; a tool-service call fails inside TrustGraph 2.11.1", async () => {
    // toolmesh's MCP-tool gateway, where this flow sends the agent's MCP tool calls, and toolmesh's MCP face
    // (the catalog as an MCP server): a tool service reached as an MCP tool, around TrustGraph's defect below.
    const [mcpTool, mcpServer] = await Promise.all([startService("mcp-tool"), startService("mcp-server")]);
    // The agent's flow, as TrustGraph's flow service would configure it: its own queues; the prompt service
    // it asks for each ReAct step (a stand-in scripting the model); the librarian it saves each step to (a
    // stand-in that says "saved"); toolmesh's mcp-tool service for MCP tools. The other clients it makes at
    // start (text completion, graph RAG, ...) get queues nobody serves: this run never asks them.
    const queue = (cls: string, name: string) => `${cls}:tg:${name}-${unique}`;
    const topics: Record<string, string> = { request: queue("request", "tg-agent"), next: queue("request", "tg-agent") };
    topics.response = queue("response", "tg-agent");
    topics.explainability = queue("flow", "tg-agent-explain");
    for (const client of [
      "prompt",
      "text-completion",
      "graph-rag",
      "structured-query",
      "embeddings",
      "row-embeddings-query",
      "librarian",
    ]) {
      topics[`${client}-request`] = queue("request", `tg-agent-${client}`);
      topics[`${client}-response`] = queue("response", `tg-agent-${client}`);
    }
    topics["mcp-tool-request"] = "request:tg:mcp-tool";
    topics["mcp-tool-response"] = "response:tg:mcp-tool";
    const steps = [
      'Thought: Echo first.\nAction: echo\nArgs: {\n  "message": "hello from TrustGraph"\n}',
      'Thought: Now a joke.\nAction: tell-short-joke\nArgs: {\n  "topic": "cats"\n}',
      'Thought: Through the catalog then.\nAction: tell-joke-over-mcp\nArgs: {\n  "topic": "cats"\n}',
    ];
    const { prompts, subscription } = await serveReactPrompts(
      tenant.pulsar,
      { request: topics["prompt-request"]!, response: topics["prompt-response"]! },
      ({ history }) => steps[history.length] ?? `Thought: Done.\nFinal Answer: ${history.map((h) => h.observation).join(" | ")}`,
    );
    const librarian = await serveLibrarianSaves(tenant.pulsar, {
      request: topics["librarian-request"]!,
      response: topics["librarian-response"]!,
    });
    const agentFrom = tgAgent.logs.length;
    // TrustGraph 2.11.1's processors re-read only the types a push names and give their handler just those,
    // so the agent's tool reload sees no tool-service unless the change touches one (then "Tool tell-pun
    // references unknown tool-service" fails it, as against TrustGraph's own config service): this put
    // writes one of them again, unchanged.
    const shortJokes = await config.request({ operation: "get", keys: [{ type: "tool-service", key: "short-jokes" }] });
    await put([
      { type: "tool-service", key: "short-jokes", value: shortJokes.values![0]!.value! },
      item("mcp", "toolmesh-catalog-joke", { url: `${mcpServer.url}/mcp`, "remote-name": "tell-short-joke" }),
      item("tool", "tell-joke-over-mcp", {
        type: "mcp-tool",
        name: "tell-joke-over-mcp",
        description: "Tells a joke about a topic, through toolmesh's catalog",
        "mcp-tool": "toolmesh-catalog-joke",
        arguments: [{ name: "topic", type: "string", description: "what the joke is about" }],
      }),
    ]);
    // Tools first: a push naming both tools and the flow may start the flow before the tools reload.
    await tgAgent.waitForLog(/.*Loaded 4 tools for workspace default/, { from: agentFrom });
    await put([item("processor:agent-manager", "default", { topics, parameters: {} })]);
    await tgAgent.waitForLog(/.*Started flow: default\/default/, { from: agentFrom });

    // Only toolmesh's mcp-tool service consumes that queue (TrustGraph's mcp-tool processor has its own).
    expect((await topicClients(tenant.webServiceUrl, queueTopic(topics["mcp-tool-request"]!))).subscriptions).toEqual(["mcp-tool-request"]);

    const AgentReply = z.looseObject({ message_type: z.string(), content: z.string(), end_of_dialog: z.boolean() });
    const tgAgentClient = await RequestClient.create(tenant.pulsar, {
      requestTopic: queueTopic(topics.request!),
      responseTopic: queueTopic(topics.response!),
      responseSchema: AgentReply,
      timeoutMs: 30_000,
    });
    const replies: Array<z.output<typeof AgentReply>> = [];
    try {
      await tgAgentClient.request(
        { question: "Echo something, then tell a joke about cats", state: "", history: [], collection: "default", streaming: false },
        { isLast: (r) => r.end_of_dialog, onReply: (r) => replies.push(r) },
      );
    } finally {
      await tgAgentClient.close();
      await subscription.close();
      await librarian.close();
      await Promise.all([mcpTool.stop(), mcpServer.stop()]);
    }
    const said = replies.filter((r) => r.message_type !== "explain").map((r) => `${r.message_type}: ${r.content}`);
    console.info(said.join("\n"));
    // It was offered the tools of toolmesh's config, the short-form tool service's included.
    expect(prompts[0]!.tools.map((t) => t.name)).toEqual(expect.arrayContaining(["echo", "tell-pun", "tell-short-joke"]));
    const [echoed, joked, overMcp] = prompts[3]!.history;
    // echo went TrustGraph's agent -> toolmesh's mcp-tool service -> the MCP server, and back.
    expect(echoed).toMatchObject({
      action: "echo",
      arguments: { message: "hello from TrustGraph" },
      observation: "Echo: hello from TrustGraph",
    });
    // TrustGraph 2.11.1's agent cannot call any tool service: its ToolServiceImpl constructs trustgraph-base's
    // ToolServiceClient with arguments that class does not take, so the call fails before anything is sent
    // (toolmesh's agent calls such tools: "toolmesh's agent with TrustGraph's queue ids" below; TrustGraph's
    // own ToolServiceClient, wired by its spec, calls toolmesh's tool services in trustgraph.test.ts). When a
    // TrustGraph release fixes it, this fails: expect the joke here then.
    expect(joked).toMatchObject({ action: "tell-short-joke", arguments: { topic: "cats" } });
    expect(joked!.observation).toBe("Error: ToolServiceClient() takes no arguments");
    // The same tool service through toolmesh's MCP face: TrustGraph's agent -> toolmesh's mcp-tool service ->
    // toolmesh's mcp-server -> the joke-service, dad-joke style as the catalog tool's config says.
    const joke = "Why don't cats play poker in the jungle? Too many cheetahs.";
    expect(overMcp).toMatchObject({ action: "tell-joke-over-mcp", arguments: { topic: "cats" }, observation: joke });
    expect(said.at(-1)).toBe(`answer: Echo: hello from TrustGraph | ${joked!.observation} | ${joke}`);
    expect(replies.at(-1)!.end_of_dialog).toBe(true);
  }, 60_000);
});

describe("toolmesh's agent with TrustGraph's queue ids", () => {
  it("calls echo, served by TrustGraph's mcp-tool processor, and tell-pun, a tool service whose queues are request:tg:/response:tg: ids", async () => {
    await waitFor(
      async () => {
        const names = (await registry.request({ operation: "current" })).revision?.tools.map((t) => t.name) ?? [];
        return names.includes("echo") && names.includes("tell-pun");
      },
      { timeoutMs: 20_000, description: "a catalog with echo and tell-pun" },
    );
    // The only consumer of the echo tool's queue is TrustGraph's processor (toolmesh's mcp-tool is not running).
    expect((await topicClients(tenant.webServiceUrl, queueTopic(MCP_QUEUES.request))).subscriptions).toEqual([
      "mcp-tool--default--default--request",
    ]);

    const lastTool = (r: { messages: Array<{ role: string; content?: string | null }> }) =>
      [...r.messages].reverse().find((m) => m.role === "tool")?.content ?? "";
    llm.script("Echo a cat pun", [
      { content: "First a pun.", tool_calls: [{ name: "tell-pun", arguments: { topic: "cats" } }] },
      (r) => ({ content: "Now echo it through TrustGraph.", tool_calls: [{ name: "echo", arguments: { message: lastTool(r) } }] }),
      (r) => ({ content: `Done: ${lastTool(r)}` }),
    ]);
    const messages = await ask("Echo a cat pun");
    expect(messages.map((m) => `${m.message_type}: ${m.content}`)).toEqual([
      "thought: First a pun.",
      `observation: ${PUN}`,
      "thought: Now echo it through TrustGraph.",
      `observation: Echo: ${PUN}`,
      `answer: Done: Echo: ${PUN}`,
    ]);
  });

  it("calls tell-llama-joke, served by TrustGraph's own joke-service processor (trustgraph-flow, unchanged)", async () => {
    await tgJoke.waitForLog(new RegExp(`Tool service topics: request=non-persistent://tg/request/${TG_JOKE_TOPIC}`), { timeoutMs: 60_000 });
    await put([
      item("tool-service", "tg-joke-service", {
        id: "tg-joke-service",
        topic: TG_JOKE_TOPIC,
        "config-params": [{ name: "style", required: false }],
      }),
      item("tool", "tell-llama-joke", {
        type: "tool-service",
        name: "tell-llama-joke",
        description: "Tells a joke on a topic (TrustGraph's joke-service)",
        service: "tg-joke-service",
        style: "dad-joke",
        arguments: [{ name: "topic", type: "string", description: "what the joke is about" }],
      }),
    ]);
    await waitFor(
      async () => (await registry.request({ operation: "current" })).revision?.tools.some((t) => t.name === "tell-llama-joke") ?? false,
      {
        timeoutMs: 20_000,
        description: "a catalog with tell-llama-joke",
      },
    );
    llm.script("A llama joke please", [
      { content: "TrustGraph's joke-service knows llamas.", tool_calls: [{ name: "tell-llama-joke", arguments: { topic: "llama" } }] },
      (r) => ({ content: `Answer: ${[...r.messages].reverse().find((m) => m.role === "tool")?.content ?? ""}` }),
    ]);
    const messages = await ask("A llama joke please");
    const lines = messages.map((m) => `${m.message_type}: ${m.content}`);
    console.info(lines.join("\n"));
    // TrustGraph's joke-service picks one of its three dad jokes about llamas at random, in this frame.
    const llamaDadJoke =
      /^Here's a dad-joke for you:\n\n(What did the llama say|Why don't llamas ever get lost|What do you call a llama with no legs)/;
    expect(lines[0]).toBe("thought: TrustGraph's joke-service knows llamas.");
    expect(messages[1]).toMatchObject({ message_type: "observation", content: expect.stringMatching(llamaDadJoke) });
    expect(messages[2]).toMatchObject({ message_type: "answer", content: `Answer: ${messages[1]!.content}` });
    expect(messages).toHaveLength(3);
  });
});
