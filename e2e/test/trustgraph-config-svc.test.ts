import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { RequestClient } from "@toolmesh/pulsar";
import { AgentResponse, ConfigResponse, type ConfigValue, ToolRegistryResponse, WorkspaceRegistry } from "@toolmesh/schema";
import { EverythingServer, PeerProcess, REPO_ROOT, ScriptedLlm, goPeer, pythonPeer, waitFor } from "@toolmesh/test-support";
import { PUN, scriptPunThenEcho } from "./fixtures/tools.js";
import { TrustGraphTenant } from "./fixtures/trustgraph-tenant.js";
import { printed, trustGraphCli } from "./trustgraph-cli.js";

// The other way round from trustgraph-gateway.test.ts: a TrustGraph 2.11.1 deployment keeps its own config
// service (trustgraph-flow's config-svc, unchanged but for its storage: a dict instead of Cassandra, see
// packages/test-support/python/trustgraph_config_svc.py), and toolmesh's services join it: they read their
// configuration from TrustGraph's config-svc, follow its pushes, and serve the tools it describes.
vi.hoisted(() => {
  process.env.TOOLMESH_TENANT = "tg";
});

const run = promisify(execFile);

const llm = new ScriptedLlm();
let tenant: TrustGraphTenant;
let everything: EverythingServer;
let configSvc: PeerProcess;
let config: RequestClient<typeof ConfigResponse>;
let registry: RequestClient<typeof ToolRegistryResponse>;
let agent: RequestClient<typeof AgentResponse>;
let gatewayUrl: string;
let mcpUrl: string;

const item = (type: string, key: string, value: unknown): ConfigValue => ({ type, key, value: JSON.stringify(value) });
const catalogNames = async () => (await registry.request({ operation: "current" })).revision?.tools.map((t) => t.name).sort() ?? [];

beforeAll(async () => {
  tenant = await TrustGraphTenant.start();
  everything = await EverythingServer.start("streamableHttp");
  await llm.start();
  configSvc = PeerProcess.start("trustgraph config-svc", pythonPeer("trustgraph-flow"), [
    join(REPO_ROOT, "packages/test-support/python/trustgraph_config_svc.py"),
    "-p",
    tenant.pulsarHost,
    "--no-metrics",
    "--no-loki-enabled",
  ]);
  await configSvc.waitForLog(/Discovered workspaces/, { timeoutMs: 60_000 });
  config = await tenant.client("config", ConfigResponse);
  // What TrustGraph's IAM or bootstrap does first: register workspace default (its config-svc has none).
  const registered = await config.request({
    operation: "put",
    workspace: WorkspaceRegistry.workspace,
    values: [{ type: WorkspaceRegistry.type, key: "default", value: WorkspaceRegistry.value }],
  });
  expect(registered.error).toBeNull();
  await configSvc.waitForLog(/Subscribed to workspace queue: default|workspace.*default/i, { timeoutMs: 20_000 });
  // Tools as TrustGraph's config holds them: a tool service with its queues, and an MCP tool.
  // TrustGraph's config-svc needs the workspace named on its system queue.
  const put = await config.request({
    operation: "put",
    workspace: "default",
    values: [
      item("tool-service", "joke-service", {
        id: "joke-service",
        "request-queue": "request:tg:joke",
        "response-queue": "response:tg:joke",
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
      item("mcp", "everything-echo", { url: everything.url, "remote-name": "echo" }),
      item("tool", "echo", {
        type: "mcp-tool",
        name: "echo",
        description: "Echoes a message back",
        "mcp-tool": "everything-echo",
        arguments: [{ name: "message", type: "string", description: "what to echo" }],
      }),
    ],
  });
  expect(put.error).toBeNull();

  await Promise.all([
    tenant.service("joke-service", { JOKE_ANNOUNCE: "false" }),
    tenant.service("mcp-tool"),
    tenant.service("tool-registry", { REGISTRY_DATA_DIR: tenant.dataFolder("registry"), REGISTRY_REFRESH_INTERVAL_MS: "0" }),
    tenant.service("agent", { AGENT_DATA_DIR: tenant.dataFolder("agent"), OPENAI_BASE_URL: llm.url, OPENAI_MODEL: "scripted" }),
    tenant.service("api-gateway").then((gateway) => (gatewayUrl = gateway.url)),
    tenant.service("mcp-server").then((mcpServer) => (mcpUrl = `${mcpServer.url}/mcp`)),
  ]);
  registry = await tenant.client("tool-registry", ToolRegistryResponse);
  agent = await tenant.client("agent", AgentResponse);
}, 300_000);

afterAll(async () => {
  await tenant?.stop();
  await configSvc?.stop();
  await llm.close();
  await everything?.stop();
});

describe("toolmesh's services on TrustGraph's config-svc", () => {
  it("the tool registry makes its catalog from TrustGraph's config", async () => {
    await waitFor(async () => (await catalogNames()).join() === "echo,tell-pun", {
      timeoutMs: 30_000,
      description: "a catalog with echo and tell-pun",
    });
  });

  it("toolmesh's agent calls both tools as TrustGraph's config describes them", async () => {
    scriptPunThenEcho(llm, "Echo a cat pun");
    const messages: AgentResponse[] = [];
    await agent.request(
      { question: "Echo a cat pun", user: "alice", streaming: true },
      { isLast: (r) => r.end_of_dialog, onReply: (r) => messages.push(r), timeoutMs: 30_000 },
    );
    expect(messages.map((m) => `${m.message_type}: ${m.content}`)).toEqual([
      "thought: First a pun.",
      `observation: ${PUN}`,
      "thought: Now echo it.",
      `observation: Echo: ${PUN}`,
      `answer: Done: Echo: ${PUN}`,
    ]);
  });

  it("toolmesh's MCP face serves that catalog: the Go MCP SDK's client lists it and calls tell-pun", async () => {
    const { stdout } = await run(goPeer("mcp-client"), [mcpUrl, "none", "tell-pun", '{"topic": "cats"}'], { timeout: 60_000 });
    const out = JSON.parse(stdout) as { tools: string[]; calls: Array<{ text: string[] }> };
    expect(out.tools).toEqual(["echo", "tell-pun"]);
    expect(out.calls[0]!.text).toEqual([PUN]);
  });

  it("follows its pushes: a tool TrustGraph's CLI adds through toolmesh's gateway reaches the catalog, and so does its removal", async () => {
    const tg = trustGraphCli();
    const ok = async (command: string, ...args: string[]) => printed(await tg(gatewayUrl, command, ...args), [command, ...args].join(" "));
    expect(await ok("tg-set-mcp-tool", "-i", "sum", "-r", "get-sum", "--tool-url", everything.url)).toBe("");
    expect(
      await ok(
        "tg-set-tool",
        "--id",
        "add",
        "--name",
        "add",
        "--description",
        "Adds two numbers",
        "--type",
        "mcp-tool",
        "--mcp-tool",
        "sum",
      ),
    ).toBe("Tool set.\n");
    await waitFor(async () => (await catalogNames()).join() === "add,echo,tell-pun", {
      timeoutMs: 30_000,
      description: "add in the catalog",
    });
    expect(await ok("tg-delete-tool", "--id", "add")).toBe("Tool 'add' deleted successfully.\n");
    await waitFor(async () => (await catalogNames()).join() === "echo,tell-pun", { timeoutMs: 30_000, description: "add gone again" });
    // The pushes came from TrustGraph's config-svc: it logs each one.
    expect(configSvc.logs).toMatch(/Pushed config poke version \d+, changes=\{'tool': \['default'\]\}/);
  });
});
