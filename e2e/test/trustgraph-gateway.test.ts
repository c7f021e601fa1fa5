import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { RequestClient } from "@toolmesh/pulsar";
import { AgentRunsResponse, ConfigResponse, ToolRegistryResponse, queueTopic } from "@toolmesh/schema";
import { EverythingServer, PeerProcess, ScriptedLlm, freePort, topicClients, waitFor } from "@toolmesh/test-support";
import { serveIamSigningKey } from "./fixtures/iam-signing-key.js";
import { TrustGraphTenant } from "./fixtures/trustgraph-tenant.js";
import { printed, trustGraphCli } from "./trustgraph-cli.js";

// A TrustGraph 2.11.1 deployment (trustgraph-flow from PyPI, unchanged: its api-gateway, flow-svc,
// no-auth-svc and bootstrap, and its CLI) with toolmesh's config, agent and mcp-tool services in place of
// its own. The gateway routes config requests to `request:tg:config:<workspace>` and flow services to the
// queues a flow's `interfaces` name, so it finds toolmesh's services by configuration alone; flow-svc and
// the bootstrap keep their blueprints, flows and state in toolmesh's config.
//
// Tenant `tg` (claimTrustGraphTenant): TrustGraph's config, flow and IAM queues are fixed in trustgraph-base.
// The gateway asks an IAM service about every request: no-auth-svc here (trustgraph-flow's drop-in for
// iam-svc, which needs Cassandra), which allows everything and registers the workspaces it creates in
// config: in toolmesh's.
vi.hoisted(() => {
  process.env.TOOLMESH_TENANT = "tg";
});

const JOKE = "Why don't cats play poker in the jungle? Too many cheetahs.";

const llm = new ScriptedLlm();
let tenant: TrustGraphTenant;
let everything: EverythingServer;
let gateway: PeerProcess;
let gatewayUrl: string;
/** toolmesh's own api-gateway, beside TrustGraph's: it forwards flow operations to TrustGraph's flow-svc. */
let toolmeshGatewayUrl: string;
let iam: PeerProcess;
let flowService: PeerProcess;
let bootstrap: PeerProcess;
let config: RequestClient<typeof ConfigResponse>;
let registry: RequestClient<typeof ToolRegistryResponse>;
let runs: RequestClient<typeof AgentRunsResponse>;
let tg: (command: string, ...args: string[]) => ReturnType<ReturnType<typeof trustGraphCli>>;

/** A TrustGraph flow blueprint that runs nothing of TrustGraph's: its flows' agent and mcp-tool are toolmesh's. */
const TOOLMESH_BLUEPRINT = {
  description: "toolmesh's agent and mcp-tool services",
  blueprint: {},
  flow: {},
  interfaces: {
    agent: { request: "request:tg:agent", response: "response:tg:agent" },
    "mcp-tool": { request: "request:tg:mcp-tool", response: "response:tg:mcp-tool" },
  },
};

/** TrustGraph's bootstrap initialisers (trustgraph.bootstrap.initialisers), as a deployment lists them. */
const bootstrapInitialisers = (seedFile: string) => [
  {
    class: "trustgraph.bootstrap.initialisers.TemplateSeed",
    name: "template-seed",
    flag: "v1",
    params: { config_file: seedFile },
  },
  { class: "trustgraph.bootstrap.initialisers.WorkspaceInit", name: "workspace-default", flag: "v1", params: { workspace: "default" } },
  {
    class: "trustgraph.bootstrap.initialisers.DefaultFlowStart",
    name: "flow-default",
    flag: "v1",
    params: { workspace: "default", flow_id: "default", blueprint: "toolmesh", description: "toolmesh's services" },
  },
];

const ok = async (command: string, ...args: string[]) => printed(await tg(command, ...args), [command, ...args].join(" "));

beforeAll(async () => {
  tenant = await TrustGraphTenant.start();
  everything = await EverythingServer.start("streamableHttp");
  await llm.start();
  await tenant.service("config", { CONFIG_DATA_DIR: tenant.dataFolder("config") });
  await Promise.all([
    tenant.service("joke-service"),
    tenant.service("mcp-tool"),
    tenant.service("tool-registry", { REGISTRY_DATA_DIR: tenant.dataFolder("registry"), REGISTRY_REFRESH_INTERVAL_MS: "0" }),
    tenant.service("agent", { AGENT_DATA_DIR: tenant.dataFolder("agent"), OPENAI_BASE_URL: llm.url, OPENAI_MODEL: "scripted" }),
    tenant.service("api-gateway").then((started) => (toolmeshGatewayUrl = started.url)),
  ]);
  config = await tenant.client("config", ConfigResponse);
  registry = await tenant.client("tool-registry", ToolRegistryResponse);
  runs = await tenant.client("agent-runs", AgentRunsResponse);

  // TrustGraph's side, once toolmesh's config answers (a config request sent before it subscribes is lost
  // and retried only after a 10 s timeout). The gateway gets its signing key from a stand-in
  // (fixtures/iam-signing-key.ts: no-auth-svc has none, and without one the gateway waits a minute before
  // it serves); no-auth-svc answers everything after.
  const flags = ["-p", tenant.pulsarHost, "--no-metrics", "--no-loki-enabled"];
  flowService = PeerProcess.start("trustgraph flow-svc", join(tenant.trustGraphBin, "flow-svc"), flags);
  const signingKey = await serveIamSigningKey(tenant.pulsar);
  const port = await freePort();
  gatewayUrl = `http://127.0.0.1:${port}`;
  gateway = PeerProcess.start("trustgraph api-gateway", join(tenant.trustGraphBin, "api-gateway"), [
    ...flags,
    "--port",
    String(port),
    "--timeout",
    "60",
  ]);
  await gateway.waitForLog(/IamAuth: fetched IAM signing public key/, { timeoutMs: 60_000 });
  await signingKey.close();
  iam = PeerProcess.start("trustgraph no-auth-svc", join(tenant.trustGraphBin, "no-auth-svc"), flags);
  const consumed = (queue: string, by?: string) =>
    waitFor(
      async () => {
        const { subscriptions } = await topicClients(tenant.webServiceUrl, queueTopic(queue));
        return by ? subscriptions.includes(by) : subscriptions.length > 0;
      },
      { timeoutMs: 60_000, description: `${by ?? "a consumer"} on ${queue}` },
    );
  await Promise.all([consumed("request:tg:iam", "no-auth-svc"), consumed("request:tg:flow:default")]);
  await gateway.waitForLog(/Known workspaces: /, { timeoutMs: 30_000 });
  const cli = trustGraphCli();
  tg = (command, ...args) => cli(gatewayUrl, command, ...args);

  // TrustGraph's deployment bootstrap (its `bootstrap` processor, as TrustGraph's own deployments run it):
  // seeds __template__ with a blueprint whose interfaces are toolmesh's services (it starts no processors
  // of TrustGraph's), copies the template into workspace default, and starts flow default from it through
  // flow-svc. All of it lands in toolmesh's config, and the gateway starts the flow from config's push.
  const seedFile = join(tenant.dataDir, "template-seed.json");
  writeFileSync(seedFile, JSON.stringify({ "flow-blueprint": { toolmesh: TOOLMESH_BLUEPRINT } }));
  const initialisers = join(tenant.dataDir, "initialisers.json");
  writeFileSync(initialisers, JSON.stringify({ initialisers: bootstrapInitialisers(seedFile) }));
  bootstrap = PeerProcess.start("trustgraph bootstrap", join(tenant.trustGraphBin, "bootstrap"), [...flags, "-c", initialisers]);
  await gateway.waitForLog(/Starting flow default\/default/, { timeoutMs: 60_000 });
}, 300_000);

afterAll(async () => {
  await gateway?.stop();
  await Promise.all([iam?.stop(), flowService?.stop(), bootstrap?.stop()]);
  await tenant?.stop();
  await llm.close();
  await everything?.stop();
});

describe("TrustGraph's api-gateway on toolmesh's services", () => {
  it("config commands reach toolmesh's config service through `request:tg:config:default`", async () => {
    expect(await ok("tg-put-config-item", "--type", "demo", "--key", "k1", "--value", '{"a": 1}')).toBe(
      "Configuration item set: demo/k1\n",
    );
    expect(await ok("tg-get-config-item", "--type", "demo", "--key", "k1")).toBe('{"a": 1}\n');
    expect(await ok("tg-put-config-item", "--type", "demo", "--key", "k2", "--value", "plain")).toBe("Configuration item set: demo/k2\n");
    expect(await ok("tg-list-config-items", "--type", "demo")).toBe("k1\nk2\n");
    expect(await ok("tg-delete-config-item", "--type", "demo", "--key", "k2")).toBe("Configuration item deleted: demo/k2\n");
    expect(await ok("tg-get-config-item", "--type", "demo", "--key", "k2")).toBe("None\n");
    const stored = await config.request({ operation: "get", keys: [{ type: "demo", key: "k1" }] });
    expect(stored.values?.[0]?.value).toBe('{"a": 1}');
    const shown = await ok("tg-show-config");
    expect(shown.split("\n")[0]).toBe(`Version: ${stored.version}`);
  });

  it("TrustGraph's bootstrap seeded toolmesh's config; tg-show-flows lists the flow flow-svc started", async () => {
    // Each initialiser's completion flag, in TrustGraph's reserved __system__ workspace.
    const state = await config.request({ operation: "getvalues", workspace: "__system__", type: "init-state" });
    expect(Object.fromEntries(state.values.map((v) => [v.key, v.value]))).toEqual({
      "template-seed": '"v1"',
      "workspace-default": '"v1"',
      "flow-default": '"v1"',
    });
    for (const workspace of ["__template__", "default"]) {
      const blueprint = await config.request({ operation: "get", workspace, keys: [{ type: "flow-blueprint", key: "toolmesh" }] });
      expect(JSON.parse(blueprint.values[0]?.value ?? "null"), workspace).toEqual(TOOLMESH_BLUEPRINT);
    }
    const flow = await config.request({ operation: "get", keys: [{ type: "flow", key: "default" }] });
    expect(JSON.parse(flow.values[0]?.value ?? "null")).toMatchObject({
      "blueprint-name": "toolmesh",
      description: "toolmesh's services",
      interfaces: TOOLMESH_BLUEPRINT.interfaces,
    });
    const shown = await ok("tg-show-flows");
    console.info(shown);
    expect(shown).toMatch(/\| id +\| default +\|\n\| blueprint \| toolmesh +\|\n\| desc +\| toolmesh's services \|/);
  });

  it("tg-create-workspace: no-auth-svc registers it in toolmesh's config, and the gateway serves it from the push", async () => {
    // Before: the gateway knows only the workspaces toolmesh's config lists, and refuses others.
    const before = await tg("tg-put-config-item", "-w", "team-a", "--type", "demo", "--key", "k", "--value", "v");
    expect(before.stdout).toMatch(/^Exception: /);
    // no-auth-svc answers with an empty workspace record, so the CLI names none.
    expect(printed(await tg("tg-create-workspace", "--workspace-id", "team-a"), "tg-create-workspace")).toMatch(/^Workspace created:/);
    const registered = await config.request({
      operation: "get",
      workspace: "__workspaces__",
      keys: [{ type: "workspace", key: "team-a" }],
    });
    expect(registered.values?.[0]?.value).toBe('{"enabled": true}');
    // toolmesh's push names the new workspace (workspace_changes.created); the gateway adds it and routes
    // team-a's config requests to `request:tg:config:team-a`, which toolmesh's config now serves.
    await gateway.waitForLog(/Workspace registered: team-a/);
    expect(await ok("tg-put-config-item", "-w", "team-a", "--type", "demo", "--key", "k", "--value", "team-a's")).toBe(
      "Configuration item set: demo/k\n",
    );
    const stored = await config.request({ operation: "get", workspace: "team-a", keys: [{ type: "demo", key: "k" }] });
    expect(stored.values?.[0]?.value).toBe("team-a's");
    expect(await ok("tg-get-config-item", "-w", "team-a", "--type", "demo", "--key", "k")).toBe("team-a's\n");
    // A new workspace gets the template's items (the blueprint TrustGraph's bootstrap seeded), and no more.
    expect((await config.request({ operation: "list", workspace: "team-a", type: "flow-blueprint" })).directory).toEqual(["toolmesh"]);
  });

  it("tg-put-flow-blueprint, tg-start-flow and tg-stop-flow: flow-svc writes and deletes a second flow in toolmesh's config, the gateway follows", async () => {
    const from = gateway.logs.length;
    const blueprint = { ...TOOLMESH_BLUEPRINT, description: "a copy" };
    expect(await ok("tg-put-flow-blueprint", "-n", "toolmesh-copy", "-c", JSON.stringify(blueprint))).toBe("");
    expect(await ok("tg-start-flow", "-n", "toolmesh-copy", "-i", "second", "-d", "a second flow")).toBe("");
    await gateway.waitForLog(/Starting flow default\/second/, { from });
    expect((await config.request({ operation: "list", type: "flow" })).directory).toEqual(["default", "second"]);
    expect(await ok("tg-stop-flow", "-i", "second")).toBe("");
    await gateway.waitForLog(/Stopping flow default\/second/, { from });
    expect((await config.request({ operation: "list", type: "flow" })).directory).toEqual(["default"]);
  });

  it("tg-export-workspace-config and tg-import-workspace-config copy default's flow blueprint into team-a", async () => {
    const exported = await tg("tg-export-workspace-config", "-o", "-");
    expect(exported.stderr).toMatch(/^Exported \d+ items across \d+ types from workspace 'default' \(version \d+\)\.\n$/);
    const payload = JSON.parse(exported.stdout) as { config: Record<string, Record<string, string>> };
    expect(Object.keys(payload.config["flow-blueprint"] ?? {}).sort()).toEqual(["toolmesh", "toolmesh-copy"]);
    const file = join(tenant.dataDir, "default-config.json");
    writeFileSync(file, exported.stdout);
    const imported = await tg("tg-import-workspace-config", "-w", "team-a", "-i", file);
    console.info(`${imported.stdout}${imported.stderr}`.trim());
    expect(imported.code).toBe(0);
    // toolmesh-copy is default's own (team-a got only toolmesh, from the template, when it was created).
    const copied = await config.request({
      operation: "get",
      workspace: "team-a",
      keys: [{ type: "flow-blueprint", key: "toolmesh-copy" }],
    });
    expect(JSON.parse(copied.values[0]?.value ?? "null")).toEqual({ ...TOOLMESH_BLUEPRINT, description: "a copy" });
  });

  it("tg-invoke-mcp-tool goes through the flow's mcp-tool interface to toolmesh's mcp-tool service", async () => {
    expect(await ok("tg-set-mcp-tool", "-i", "echo", "-r", "echo", "--tool-url", everything.url)).toBe("");
    expect(await ok("tg-invoke-mcp-tool", "-n", "echo", "-P", '{"message": "through TrustGraph\'s gateway"}')).toBe(
      "Echo: through TrustGraph's gateway\n",
    );
    // A call with no parameters: the gateway sends `"parameters": null`, read as {} (as TrustGraph's processor does).
    expect(await ok("tg-set-mcp-tool", "-i", "env", "-r", "get-env", "--tool-url", everything.url)).toBe("");
    const response = await fetch(`${gatewayUrl}/api/v1/flow/default/service/mcp-tool`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "env" }),
    });
    const body = (await response.json()) as { text?: string };
    expect(response.status).toBe(200);
    expect(Object.keys(JSON.parse(body.text ?? "{}") as object)).toContain("PATH");
    // toolmesh's mcp-tool answers an unknown tool with an error reply ("no mcp tool 'nope' in config"), as
    // TrustGraph's processor does; TrustGraph 2.11.1's gateway drops it (its tool response translator keeps
    // only `text` and `object`) and answers `{}`, which its CLI reports so. Through toolmesh's gateway the
    // CLI prints the error (trustgraph-cli.test.ts). When a TrustGraph release fixes it, this fails.
    const r = await tg("tg-invoke-mcp-tool", "-n", "nope", "-P", "{}");
    expect(r.stdout).toBe("Exception: Response not formatted correctly\n");
  });

  it("tg-invoke-agent runs toolmesh's agent, which calls toolmesh's joke-service; the run is recorded", async () => {
    await waitFor(async () => (await registry.request({ operation: "current" })).revision?.tools.some((t) => t.name === "tell-dad-joke"), {
      timeoutMs: 30_000,
      description: "a catalog with tell-dad-joke, which the joke-service announces",
    });
    const question = "Tell me a joke about cats, via TrustGraph's gateway";
    llm.script(question, [
      { content: "The joke tool knows cats.", tool_calls: [{ name: "tell-dad-joke", arguments: { topic: "cats" } }] },
      (r) => ({ content: `Here it is: ${[...r.messages].reverse().find((m) => m.role === "tool")?.content ?? ""}` }),
    ]);
    const out = await ok("tg-invoke-agent", "-q", question, "-v");
    console.info(out);
    expect(out).toBe(`❓ ${question}\n\n🤔  The joke tool knows cats.\n\n💡  ${JOKE}\n\nHere it is: ${JOKE}\n`);
    const listed = await runs.request({ operation: "list", limit: 5 });
    expect(listed.error).toBeNull();
    expect(listed.runs?.some((run) => run.question === question && run.status === "answered")).toBe(true);
  }, 60_000);

  it("an agent run that fails: toolmesh's agent replies with the error; TrustGraph 2.11.1's gateway cannot pass it on", async () => {
    // No script for this question, so the scripted LLM answers 500 and the agent replies `error`. TrustGraph's
    // agent response translator reads `error.code`, a field TrustGraph's own Error type does not have, so
    // any agent error (its own agent's too) ends in this. When a TrustGraph release fixes it, this fails.
    const r = await tg("tg-invoke-agent", "-q", "A question nobody scripted");
    expect(r.stdout).toBe("Exception: 'Error' object has no attribute 'code'\n");
    const listed = await runs.request({ operation: "list", limit: 5 });
    expect(listed.runs?.find((run) => run.question === "A question nobody scripted")?.status).toBe("failed");
  });
});

describe("toolmesh's api-gateway in front of TrustGraph's flow-svc", () => {
  const viaToolmesh = (command: string, ...args: string[]) => trustGraphCli()(toolmeshGatewayUrl, command, ...args);
  const okViaToolmesh = async (command: string, ...args: string[]) =>
    printed(await viaToolmesh(command, ...args), [command, ...args].join(" "));

  it("tg-show-flow-blueprints, tg-show-flows, tg-start-flow and tg-stop-flow work through it as through TrustGraph's", async () => {
    const blueprints = await okViaToolmesh("tg-show-flow-blueprints");
    console.info(blueprints);
    expect(blueprints).toMatch(/toolmesh-copy/);
    expect(await okViaToolmesh("tg-start-flow", "-n", "toolmesh", "-i", "third", "-d", "via toolmesh's gateway")).toBe("");
    expect((await config.request({ operation: "list", type: "flow" })).directory).toEqual(["default", "third"]);
    const shown = await okViaToolmesh("tg-show-flows");
    expect(shown).toMatch(/\| id +\| third +\|\n\| blueprint \| toolmesh +\|\n\| desc +\| via toolmesh's gateway \|/);
    expect(await okViaToolmesh("tg-stop-flow", "-i", "third")).toBe("");
    expect((await config.request({ operation: "list", type: "flow" })).directory).toEqual(["default"]);
  });

  it("passes flow-svc's error on, where TrustGraph's gateway prints nothing", async () => {
    const args = ["-n", "no-such-blueprint", "-i", "fourth", "-d", "never"];
    const viaTrustGraph = await tg("tg-start-flow", ...args);
    expect(viaTrustGraph.stdout + viaTrustGraph.stderr).toBe("");
    const r = await viaToolmesh("tg-start-flow", ...args);
    console.info(`tg-start-flow of a missing blueprint via toolmesh's gateway: ${r.stdout.trim()}`);
    expect(r.stdout).toMatch(/^Exception: .*Blueprint does not exist/);
  });
});
