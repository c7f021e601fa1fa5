import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmbeddedPostgresServer, ScriptedLlm, startEmbeddedPostgres, waitFor } from "@toolmesh/test-support";
import { type GatewayReply, System, postToGateway } from "./system.js";
import { trustGraphCli } from "./trustgraph-cli.js";

// PostgreSQL restarts while the system runs: tool-registry and two agent replicas keep their state on one
// server, config on another (each service may have its own database), and each is stopped (a fast
// shutdown: its connections are cut) and started again. Meanwhile every request gets a prompt error reply
// and nothing else stops serving; afterwards the services serve again within seconds, with no restart of
// theirs: a tool put while the registry could not refresh reaches the catalog by itself, a run whose end
// came during the outage is recorded, and runs held across an outage longer than the agents' stale period
// are answered and recorded answered (neither replica takes the other for gone).
const system = new System();
const llm = new ScriptedLlm();
let stateServer: EmbeddedPostgresServer;
let configServer: EmbeddedPostgresServer;

const post = (path: string, body: unknown): Promise<GatewayReply> => postToGateway(system.gatewayUrl, path, body, 30_000);

const ask = (question: string) => post("flow/default/service/agent", { question, user: "outage" });
const readRun = (runId: string) => post("flow/default/service/agent-runs", { operation: "get", run_id: runId });
const joke = () => post("flow/default/service/joke-service", { user: "outage", config: '{"style":"pun"}', arguments: '{"topic":"cats"}' });
const putTool = (name: string) =>
  post("config", {
    operation: "put",
    workspace: "default",
    values: [
      {
        type: "tool",
        key: name,
        value: JSON.stringify({
          type: "tool-service",
          name,
          description: `tells a joke (${name})`,
          service: "joke-service",
          style: "pun",
          arguments: [],
        }),
      },
    ],
  });
const catalogTools = async () => {
  const catalog = (await (await fetch(`${system.get("tool-registry").url}/tools/catalog`)).json()) as { tools?: Array<{ name: string }> };
  return (catalog.tools ?? []).map((t) => t.name);
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The first reply to `send` that is not `unavailable`, asking again for up to 6 s after a database came
 * back (the pools try it again within 2 s; the driver's own backoff waited up to 20 s).
 */
async function soonAfterRestart(send: () => Promise<GatewayReply>): Promise<GatewayReply> {
  const deadline = performance.now() + 6_000;
  for (;;) {
    const reply = await send();
    const type = (reply.body.error as { type?: string } | null | undefined)?.type;
    if (type !== "unavailable" || performance.now() > deadline) return reply;
    await sleep(250);
  }
}

const STATEFUL = ["tool-registry", "agent", "agent-b"];
const AGENTS = ["agent", "agent-b"];

/** An agent replica on the state database: beats every 0.5 s, and counts another as gone after 2 s. */
const agentEnv = () => ({
  DATABASE_URL: stateServer.url,
  OPENAI_BASE_URL: llm.url,
  OPENAI_MODEL: "scripted",
  AGENT_HEARTBEAT_INTERVAL_MS: "500",
  AGENT_INSTANCE_STALE_MS: "2000",
});
const pids = new Map<string, number | undefined>();
let runBefore: string;

beforeAll(async () => {
  [stateServer, configServer] = await Promise.all([startEmbeddedPostgres(), startEmbeddedPostgres()]);
  await llm.start();
  llm.script("outage", [{ content: "done" }]);
  await system.start([
    ["config", { DATABASE_URL: configServer.url }],
    // Retries after a failed refresh wait 1 s, then 2 s at most (30 s by default), so the test is short.
    ["tool-registry", { DATABASE_URL: stateServer.url, REGISTRY_REFRESH_INTERVAL_MS: "0", REGISTRY_REFRESH_RETRY_MAX_MS: "2000" }],
    ["agent", agentEnv()],
    ["joke-service", {}],
    // Shorter than the driver's own reconnect backoff (up to 20 s), which a request after the restart
    // used to wait out (runs may take longer: one test holds them across an outage).
    ["api-gateway", { GATEWAY_REQUEST_TIMEOUT_MS: "8000", GATEWAY_AGENT_TIMEOUT_MS: "20000" }],
  ]);
  // A second agent replica: across an outage each must not take the other for gone.
  await system.add("agent-b", "agent", agentEnv());
  for (const name of system.services.keys()) pids.set(name, system.get(name).pid);
  // The joke-service as a configured tool service (the gateway routes to it by this descriptor).
  const descriptor = { id: "joke-service", topic: "joke", "config-params": [{ name: "style", required: true }] };
  await post("config", {
    operation: "put",
    workspace: "default",
    values: [{ type: "tool-service", key: "joke-service", value: JSON.stringify(descriptor) }],
  });
  const first = await waitFor(
    async () => {
      const reply = await ask("outage: before");
      return reply.body.message_type === "answer" ? reply : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 500, description: "a first answered run (the joke-service's tools in the catalog)" },
  );
  runBefore = first.body.run_id as string;
}, 180_000);

afterAll(async () => {
  await system.stop();
  await llm.close();
  await stateServer?.stop();
  await configServer?.stop();
});

describe("the tool-registry's and agent's PostgreSQL restarts", () => {
  it("while it is down: each request gets an error reply, config takes a tool, the stateless tool call still answers", async () => {
    await stateServer.halt();
    const run = await ask("outage: during");
    expect(run.body).toMatchObject({ message_type: "error", end_of_dialog: true, error: { type: "unavailable" } });
    expect((run.body.error as { message: string }).message).toBe(
      "cannot get the tool catalog: tool registry: the database cannot be reached (ECONNREFUSED); retry shortly",
    );
    const unread = await readRun(runBefore);
    expect(unread.body.error).toEqual({
      type: "unavailable",
      message: "the database cannot be reached (ECONNREFUSED); retry shortly",
    });
    const catalog = await fetch(`${system.get("tool-registry").url}/tools/catalog`);
    expect(catalog.status).toBe(503);
    expect(((await catalog.json()) as { error: { type: string } }).error.type).toBe("unavailable");
    // Config's own database is up: the put is acknowledged, and the registry's refresh for it fails.
    expect((await putTool("told-during-outage")).body).toMatchObject({ version: expect.any(Number) });
    const told = await joke();
    expect(told.body.error ?? null).toBeNull();
    expect(told.body.response).toMatch(/\bpun\b/);
    await waitFor(() => /catalog refresh failed/.test(system.get("tool-registry").logs), {
      timeoutMs: 10_000,
      description: "the registry's refresh for the put to fail",
    });
    // Traffic goes on for a few seconds: every run gets its error reply, and the pools' failed connections
    // pile up (enough for the driver's own reconnect backoff to reach 10-20 s).
    for (let i = 0; i < 16; i++) {
      expect((await ask(`outage: during ${i}`)).body.message_type, `run ${i}`).toBe("error");
      expect((await readRun(runBefore)).body.error, `read ${i}`).toMatchObject({ type: "unavailable" });
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    for (const name of system.services.keys()) expect((await fetch(`${system.get(name).url}/healthz`)).status, name).toBe(200);
  }, 60_000);

  it("once it is back: the next run is answered and recorded, and the tool put meanwhile reaches the catalog by itself", async () => {
    await stateServer.resume();
    // Serving again within seconds: a request at the very moment may still meet a connection the restart
    // cut, and is answered `unavailable` like any in the outage (the gateway's timeout is 8 s).
    const run = await soonAfterRestart(() => ask("outage: after"));
    expect(run.body).toMatchObject({ message_type: "answer", content: "done" });
    expect((await readRun(run.body.run_id as string)).body.run).toMatchObject({ status: "answered" });
    expect((await readRun(runBefore)).body.run).toMatchObject({ status: "answered" });
    await waitFor(async () => (await catalogTools()).includes("told-during-outage"), {
      timeoutMs: 20_000,
      intervalMs: 250,
      description: "the tool put during the outage in the catalog, with no later change",
    });
    expect(system.get("tool-registry").logs).toMatch(/"reason":"retry after a failed refresh"[^\n]*"msg":"catalog revision created"/);
    // Each outage is logged once as a warning and once as an error (at the third failure), then quietly.
    const loud = (service: string, message: string) =>
      system
        .get(service)
        .logs.split("\n")
        .filter((line) => line.includes(`"msg":"${message}"`) && /"level":(40|50)/.test(line)).length;
    for (const agent of AGENTS) expect(loud(agent, "agent instance heartbeat failed"), agent).toBeLessThanOrEqual(2);
    expect(loud("tool-registry", "catalog refresh failed")).toBeLessThanOrEqual(2);
    await waitFor(() => system.get("agent").logs.includes('"msg":"agent instance heartbeat back"'), {
      timeoutMs: 5_000,
      description: "the agent's heartbeat back",
    });
    // No service restarted or exited.
    for (const [name, pid] of pids) {
      expect(system.get(name).pid, name).toBe(pid);
      expect(() => process.kill(pid!, 0), name).not.toThrow();
    }
    for (const name of STATEFUL) expect((await fetch(`${system.get(name).url}/healthz`)).status, name).toBe(200);
  }, 60_000);
});

describe("a run whose answer comes while its database is away", () => {
  it("is answered unavailable, and recorded failed once the database is back (not left running)", async () => {
    let answer: (reply: { content: string }) => void = () => undefined;
    llm.script("held answer", [() => new Promise((resolve) => (answer = resolve))]);
    const asking = ask("held answer");
    await waitFor(() => llm.requestsFor("held answer").length === 1, { timeoutMs: 10_000, description: "the run's LLM call" });
    await stateServer.halt();
    answer({ content: "too late to record" });
    const reply = (await asking).body;
    expect(reply).toMatchObject({
      message_type: "error",
      error: { type: "unavailable", message: "the database cannot be reached (ECONNREFUSED); retry shortly" },
    });
    await stateServer.resume();
    const run = await waitFor(
      async () => {
        const read = (await readRun(reply.run_id as string)).body.run as { status: string; error: string } | undefined;
        return read?.status === "failed" ? read : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 250, description: "the run recorded failed" },
    );
    expect(run.error).toBe("the database cannot be reached (ECONNREFUSED); retry shortly");
    // On whichever replica ran it.
    expect(AGENTS.map((agent) => system.get(agent).logs).join("\n")).toMatch(/recorded how a run ended, kept while the database was away/);
  }, 60_000);
});

describe("two agent replicas across an outage longer than AGENT_INSTANCE_STALE_MS", () => {
  it("neither takes the other for gone: runs waiting on the LLM through it are answered and recorded answered", async () => {
    const releases: Array<() => void> = [];
    llm.script("through the restart", [() => new Promise((resolve) => releases.push(() => resolve({ content: "made it" })))]);
    const asking = [0, 1, 2, 3].map((i) => ask(`through the restart ${i}`));
    await waitFor(() => releases.length === 4, { timeoutMs: 10_000, description: "four runs at the LLM" });
    await stateServer.halt();
    // Longer than the 2 s stale period: when the database is back, every instance's last beat is old.
    await sleep(3_000);
    await stateServer.resume();
    // Several beats of each replica, long enough for one to fail the other's runs as orphaned.
    await sleep(3_000);
    releases.forEach((release) => release());
    const replies = await Promise.all(asking);
    for (const reply of replies) expect(reply.body).toMatchObject({ message_type: "answer", content: "made it" });
    for (const reply of replies) expect((await readRun(reply.body.run_id as string)).body.run).toMatchObject({ status: "answered" });
    for (const agent of AGENTS) expect(system.get(agent).logs, agent).not.toContain("failed a run left running by a gone agent instance");
  }, 60_000);
});

/** config's toolmesh_store_operations_total by store method and outcome (`write ok`), from its /metrics. */
async function storeCalls(): Promise<Record<string, number>> {
  const text = await (await fetch(`${system.get("config").url}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const [, operation, outcome, value] of text.matchAll(
    /^toolmesh_store_operations_total\{operation="(\w+)",outcome="(\w+)"[^}]*\} (\d+)$/gm,
  ))
    counts[`${operation} ${outcome}`] = Number(value);
  return counts;
}

describe("config's PostgreSQL restarts", () => {
  it("a put meanwhile is answered unavailable; once it is back the next put's version follows the last acknowledged one", async () => {
    const before = (await putTool("before-config-outage")).body.version as number;
    await configServer.halt();
    const refused = await putTool("during-config-outage");
    expect(refused.body.error).toEqual({ type: "unavailable", message: "the database cannot be reached (ECONNREFUSED); retry shortly" });
    // TrustGraph 2.11.1's own CLI, through the gateway, reports the same reply as its client raises it.
    const told = await trustGraphCli()(system.gatewayUrl, "tg-put-config-item", "--type", "outage", "--key", "k", "--value", "v");
    expect(told.stdout + told.stderr).toContain("the database cannot be reached (ECONNREFUSED); retry shortly");
    await configServer.resume();
    const after = await soonAfterRestart(() => putTool("after-config-outage"));
    expect(after.body).toMatchObject({ version: before + 1 });
    expect(after.body.error).toBeUndefined();
    // Operators see it in config's metrics: the store calls of the refused puts as `unavailable` (a put
    // first reads the registered workspaces), the others `ok`.
    const calls = await storeCalls();
    expect(calls["workspaces unavailable"]).toBeGreaterThanOrEqual(2);
    expect(calls["write ok"]).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
