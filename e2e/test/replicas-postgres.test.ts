import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PulsarClient } from "@toolmesh/pulsar";
import { ConfigPush } from "@toolmesh/schema";
import {
  EverythingServer,
  ScriptedLlm,
  type ServiceProcess,
  type TestDatabase,
  clientOptions,
  createTestDatabase,
  waitFor,
  testTopics,
} from "@toolmesh/test-support";
import { System, postToGateway } from "./system.js";

// Issue 17: two replicas of every service on one PostgreSQL database and the real broker, under load
// (tool calls, config puts, agent runs with the scripted LLM, all through the gateways; catalog tool calls
// through both replicas of the MCP face, with the MCP TypeScript SDK's client), then one replica
// of each killed with SIGKILL in the middle of it. The state services must stay correct by construction:
// config versions never repeated or backwards, catalog revisions never repeated, every run readable
// through either agent replica, every acknowledged write still there, and the survivors serving.
const system = new System();
const llm = new ScriptedLlm();
const pushes: ConfigPush[] = [];
let everything: EverythingServer;
let database: TestDatabase;
let pulsar: PulsarClient;

const SERVICES = ["config", "tool-registry", "agent", "joke-service", "mcp-tool", "api-gateway", "mcp-server"] as const;
const replica = (service: string, which: "a" | "b") => system.get(`${service}-${which}`);
const gateways = () => (["a", "b"] as const).map((w) => replica("api-gateway", w)).filter((g) => alive.has(g));
const alive = new Set<ServiceProcess>();
/** The live replicas of the MCP face, with their labels. */
const mcpFaces = () =>
  (["a", "b"] as const).map((w) => ({ label: `mcp-server-${w}`, face: replica("mcp-server", w) })).filter((m) => alive.has(m.face));

/**
 * One MCP session per mcp-server replica, opened on first use. Sessions live in the replica that opened
 * them (its only state), so a session whose replica is gone is dropped and the next call opens another.
 */
const mcpSessions = new Map<ServiceProcess, Promise<Client>>();
function mcpSession(face: ServiceProcess): Promise<Client> {
  let session = mcpSessions.get(face);
  if (!session) {
    const client = new Client({ name: "replicas-test", version: "1" });
    session = client.connect(new StreamableHTTPClientTransport(new URL(`${face.url}/mcp`))).then(() => client);
    mcpSessions.set(face, session);
  }
  return session;
}

/** tools/call of the catalog tool `tell-pun` through one MCP face; false when it was not answered with the pun. */
async function mcpPun(face: ServiceProcess): Promise<boolean> {
  try {
    const client = await mcpSession(face);
    const result = (await client.callTool({ name: "tell-pun", arguments: { topic: "cats" } }, undefined, { timeout: 15_000 })) as {
      isError?: boolean;
      content?: Array<{ type: string; text?: string }>;
    };
    // The joke-service's answer in the `pun` style the tool's config gives it.
    return !result.isError && /\bpun\b/.test(result.content?.[0]?.text ?? "");
  } catch {
    mcpSessions.delete(face);
    return false;
  }
}

/** POST to a gateway; null when the request was not acknowledged (refused, timed out, error reply). */
async function post(gateway: ServiceProcess, path: string, body: unknown): Promise<Record<string, unknown> | null> {
  try {
    const reply = await postToGateway(gateway.url, path, body, 15_000);
    return reply.status >= 200 && reply.status < 300 && !reply.body.error ? reply.body : null;
  } catch {
    return null;
  }
}

/** What the load acknowledged: each put's unique key, value and version; each answered run. */
interface Acked {
  puts: Array<{ worker: number; key: string; value: string; version: number }>;
  runs: string[];
  toolCalls: number;
  /** Catalog tool calls answered through each MCP face replica. */
  mcpCalls: Map<string, number>;
  failures: number;
}

const noneAcked = (): Acked => ({ puts: [], runs: [], toolCalls: 0, mcpCalls: new Map(), failures: 0 });
const mcpCallsLine = (acked: Acked) => [...acked.mcpCalls].map(([face, n]) => `${n} through ${face}`).join(", ");

/** Runs `workers` loops of one operation each (puts, runs, tool calls, catalog churn) until stop(). */
function load(acked: Acked, label: string) {
  let stopped = false;
  let n = 0;
  const pick = () => {
    const list = gateways();
    return list[n++ % list.length]!;
  };
  const loop = async (step: (i: number) => Promise<boolean>) => {
    for (let i = 0; !stopped; i++) if (!(await step(i))) acked.failures++;
  };
  const putter = (worker: number) =>
    loop(async (i) => {
      const key = `${label}-${worker}-${i}`;
      const value = JSON.stringify({ worker, i });
      const reply = await post(pick(), "config", { operation: "put", workspace: "default", values: [{ type: "load", key, value }] });
      if (reply) acked.puts.push({ worker, key, value, version: reply.version as number });
      return reply !== null;
    });
  const runner = (worker: number) =>
    loop(async (i) => {
      const reply = await post(pick(), "flow/default/service/agent", { question: `load-run ${label} ${worker} ${i}`, user: "load" });
      if (reply?.run_id && reply.message_type === "answer") acked.runs.push(reply.run_id as string);
      return Boolean(reply?.run_id);
    });
  const caller = () =>
    loop(async (i) => {
      const reply =
        i % 2 === 0
          ? await post(pick(), "flow/default/service/joke-service", {
              user: "load",
              config: '{"style":"pun"}',
              arguments: '{"topic":"cats"}',
            })
          : await post(pick(), "flow/default/service/mcp-tool", { name: "echo", parameters: { message: `m${i}` } });
      if (reply) acked.toolCalls++;
      return reply !== null;
    });
  const mcpCaller = () =>
    loop(async (i) => {
      const faces = mcpFaces();
      const { label, face } = faces[i % faces.length]!;
      const answered = await mcpPun(face);
      if (answered) acked.mcpCalls.set(label, (acked.mcpCalls.get(label) ?? 0) + 1);
      return answered;
    });
  // New tools now and then: every replica of the registry refreshes on the push, one revision results.
  const churner = () =>
    loop(async (i) => {
      const id = `churn-${label}-${i % 3}`;
      const body =
        i % 6 < 3
          ? { operation: "put", workspace: "default", values: [{ type: "tool", key: id, value: JSON.stringify(jokeTool(id)) }] }
          : { operation: "delete", workspace: "default", keys: [{ type: "tool", key: id }] };
      return (await post(pick(), "config", body)) !== null;
    });
  const all = Promise.all([putter(0), putter(1), putter(2), runner(0), runner(1), caller(), mcpCaller(), churner()]);
  return {
    stop: async () => {
      stopped = true;
      await all;
    },
  };
}

const jokeTool = (name: string) => ({
  type: "tool-service",
  name,
  description: `tells a pun (${name})`,
  service: "joke-service",
  style: "pun",
  arguments: [{ name: "topic", type: "string", description: "what about" }],
});

const catalogOf = async (registry: ServiceProcess) =>
  (await (await fetch(`${registry.url}/tools/catalog`)).json()) as { revision_number: number; content_hash: string };
const revisionsOf = async (registry: ServiceProcess) =>
  (await (await fetch(`${registry.url}/tools/catalog/revisions?limit=1000`)).json()) as Array<{
    revision_number: number;
    content_hash: string;
  }>;

async function readRun(runId: string): Promise<{ status: string } | null> {
  const reply = await post(gateways()[0]!, "flow/default/service/agent-runs", { operation: "get", run_id: runId });
  return (reply?.run as { status: string } | undefined) ?? null;
}

/** Which agent instance (`host-pid-random`) recorded each run, read from the shared database itself. */
async function recorders(runIds: string[]): Promise<Map<string, string>> {
  const sql = postgres(database.url, { max: 1 });
  try {
    const rows = await sql<
      Array<{ run_id: string; instance_id: string }>
    >`SELECT run_id, instance_id FROM agent_runs WHERE run_id = ANY(${runIds}::text[])`;
    return new Map(rows.map((r) => [r.run_id, r.instance_id]));
  } finally {
    await sql.end();
  }
}
const pidOf = (instanceId: string | undefined) => /-(\d+)-[0-9a-f]{8}$/.exec(instanceId ?? "")?.[1];

/** Every run readable, answered, through the gateway (and so through whichever agent replicas are up). */
async function expectReadable(runIds: string[]) {
  for (const runId of runIds) expect((await readRun(runId))?.status, runId).toBe("answered");
}

/** Waits until `count` more of the acknowledged items exist (load is making progress). */
const progress = (acked: Acked, puts: number, runs: number) =>
  waitFor(() => acked.puts.length >= puts && acked.runs.length >= runs, {
    timeoutMs: 120_000,
    intervalMs: 200,
    description: `${puts} puts and ${runs} runs acknowledged`,
  });

beforeAll(async () => {
  database = await createTestDatabase("replicas");
  everything = await EverythingServer.start("streamableHttp");
  await llm.start();
  llm.script("load-run", [
    { content: "A pun first.", tool_calls: [{ name: "tell-pun", arguments: { topic: "cats" } }] },
    { content: "done" },
  ]);
  const env: Record<string, Record<string, string>> = {
    config: {},
    "tool-registry": { REGISTRY_REFRESH_INTERVAL_MS: "0", REGISTRY_ALLOWED_NETWORKS: "127.0.0.0/8" },
    agent: { OPENAI_BASE_URL: llm.url, OPENAI_MODEL: "scripted", AGENT_HEARTBEAT_INTERVAL_MS: "500", AGENT_INSTANCE_STALE_MS: "2000" },
    "joke-service": { JOKE_ANNOUNCE: "false" },
    "mcp-tool": {},
    "api-gateway": { GATEWAY_REQUEST_TIMEOUT_MS: "5000", GATEWAY_AGENT_TIMEOUT_MS: "10000", GATEWAY_MCP_TOOL_TIMEOUT_MS: "5000" },
    // The registry's pushes are on a non-persistent topic; under this load one may be dropped, and the
    // face's safety-net poll (30 s by default) would then decide how soon both faces agree.
    "mcp-server": { MCP_REGISTRY_POLL_MS: "2000" },
  };
  await system.start([]);
  pulsar = new PulsarClient(clientOptions(system.broker));
  await pulsar.subscribe({ topic: testTopics().configNotify, subscription: `replicas-${process.pid}`, type: "Exclusive" }, async (m) => {
    pushes.push(ConfigPush.parse(JSON.parse(m.payload.toString())));
  });
  // Both replicas of each service start at once: the migrations must be applied once, whoever is first.
  for (const service of SERVICES) {
    const started = await Promise.all(
      (["a", "b"] as const).map((w) => system.add(`${service}-${w}`, service, { DATABASE_URL: database.url, ...env[service] })),
    );
    for (const s of started) alive.add(s);
  }
  const setup = [
    {
      type: "tool-service",
      key: "joke-service",
      value: JSON.stringify({ id: "joke-service", topic: "joke", "config-params": [{ name: "style", required: true }] }),
    },
    { type: "tool", key: "tell-pun", value: JSON.stringify(jokeTool("tell-pun")) },
    { type: "mcp", key: "echo", value: JSON.stringify({ url: everything.url, "remote-name": "echo" }) },
  ];
  expect(await post(gateways()[0]!, "config", { operation: "put", workspace: "default", values: setup })).not.toBeNull();
  await waitFor(async () => (await catalogOf(replica("tool-registry", "b"))).revision_number > 0, {
    timeoutMs: 20_000,
    description: "a first catalog revision",
  });
}, 240_000);

afterAll(async () => {
  for (const session of mcpSessions.values()) await session.then((client) => client.close()).catch(() => undefined);
  await pulsar?.close();
  await system.stop();
  await llm.close();
  await everything?.stop();
  await database?.drop();
});

describe("two replicas of every service on one PostgreSQL", () => {
  const before = noneAcked();
  const during = noneAcked();

  it("under load: config versions never repeat or go backwards, revisions never repeat, both registries serve the same one", async () => {
    const running = load(before, "both");
    await progress(before, 120, 16);
    await running.stop();
    expect(before.failures).toBe(0);

    const versions = before.puts.map((p) => p.version);
    expect(new Set(versions).size).toBe(versions.length);
    for (const worker of [0, 1, 2]) {
      const mine = before.puts.filter((p) => p.worker === worker).map((p) => p.version);
      for (let i = 1; i < mine.length; i++) expect(mine[i]).toBeGreaterThan(mine[i - 1]!);
    }
    // Every acknowledged put was pushed by the replica that made it, with its own version, once.
    await waitFor(() => versions.every((v) => pushes.some((p) => p.version === v)), { description: "every put's push" });
    const changePushes = pushes.filter((p) => Object.keys(p.changes).length > 0).map((p) => p.version);
    expect(new Set(changePushes).size).toBe(changePushes.length);

    const [a, b] = [replica("tool-registry", "a"), replica("tool-registry", "b")];
    // A refresh for the last puts may still land: read both lists until they agree on the newest revision.
    let revisions: Awaited<ReturnType<typeof revisionsOf>> = [];
    let revisionsOfB: typeof revisions = [];
    await waitFor(
      async () => {
        revisions = await revisionsOf(a);
        revisionsOfB = await revisionsOf(b);
        return revisions[0]?.revision_number === revisionsOfB[0]?.revision_number;
      },
      { description: "both registries on one revision" },
    );
    expect(revisions.length).toBeGreaterThan(3);
    expect(revisions.map((r) => r.revision_number)).toEqual(revisions.map((_, i) => revisions[0]!.revision_number - i));
    // A duplicated refresh would store the same catalog twice in a row.
    for (let i = 1; i < revisions.length; i++) expect(revisions[i]!.content_hash).not.toBe(revisions[i - 1]!.content_hash);
    expect(revisionsOfB).toEqual(revisions);

    // The MCP faces hold nothing of their own: both answered catalog tool calls, and both list the same tools
    // on a session that follows the newest revision (the load's sessions are pinned to the revision current
    // when each opened, as MCP sessions are by default).
    expect([...before.mcpCalls.keys()].sort()).toEqual(["mcp-server-a", "mcp-server-b"]);
    const latest = await Promise.all(
      mcpFaces().map(async ({ face }) => {
        const client = new Client({ name: "replicas-test-latest", version: "1" });
        await client.connect(new StreamableHTTPClientTransport(new URL(`${face.url}/mcp?revision=latest`)));
        return client;
      }),
    );
    const listed = await waitFor(
      async () => {
        const lists = await Promise.all(latest.map(async (client) => (await client.listTools()).tools.map((t) => t.name).sort()));
        return JSON.stringify(lists[0]) === JSON.stringify(lists[1]) ? lists : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 500, description: "both MCP faces listing the same tools" },
    );
    await Promise.all(latest.map((client) => client.close()));
    expect(listed[0]).toContain("tell-pun");

    console.log(
      `both up: ${before.puts.length} puts (versions ${Math.min(...versions)}-${Math.max(...versions)}), ${before.runs.length} runs, ${before.toolCalls} tool calls, ` +
        `MCP tool calls ${mcpCallsLine(before)}, ${revisions.length} revisions, 0 failures`,
    );
  }, 120_000);

  it("runs are recorded by both agent replicas and each is readable through the gateways", async () => {
    const byRun = await recorders(before.runs);
    const pids = [replica("agent", "a").pid, replica("agent", "b").pid].map(String);
    expect([...new Set(before.runs.map((r) => pidOf(byRun.get(r))))].sort()).toEqual(pids.sort());
    await expectReadable(before.runs);
  });

  it("SIGKILL one replica of each mid-load: every acknowledged write is still there and the survivors serve", async () => {
    const running = load(during, "kill");
    await progress(during, 30, 4);
    const victims = SERVICES.map((s) => replica(s, "a"));
    for (const victim of victims) alive.delete(victim);
    await Promise.all(victims.map((v) => v.kill()));
    const [putsAtKill, runsAtKill] = [during.puts.length, during.runs.length];
    await progress(during, putsAtKill + 60, runsAtKill + 8);
    await running.stop();

    // Versions: still one sequence across before and during, none repeated.
    const versions = [...before.puts, ...during.puts].map((p) => p.version);
    expect(new Set(versions).size).toBe(versions.length);
    for (const worker of [0, 1, 2]) {
      const mine = during.puts.filter((p) => p.worker === worker).map((p) => p.version);
      for (let i = 1; i < mine.length; i++) expect(mine[i]).toBeGreaterThan(mine[i - 1]!);
    }
    // Every acknowledged put reads back through the surviving gateway and config replica.
    const survivor = replica("api-gateway", "b");
    const stored = new Map<string, string>();
    for (const type of ["load"]) {
      const reply = await post(survivor, "config", { operation: "getvalues", workspace: "default", type });
      for (const item of (reply?.values as Array<{ key: string; value: string }>) ?? []) stored.set(item.key, item.value);
    }
    const lost = [...before.puts, ...during.puts].filter((p) => stored.get(p.key) !== p.value);
    expect(lost).toEqual([]);
    // Every acknowledged run, recorded by either replica, reads back through the surviving agent (b).
    const runs = [...before.runs, ...during.runs];
    const byRun = await recorders(runs);
    const killedAgent = String(replica("agent", "a").pid);
    expect(runs.filter((r) => pidOf(byRun.get(r)) === killedAgent).length).toBeGreaterThan(0);
    await expectReadable(runs);
    // Revisions: numbered without a repeat or a gap, the survivor serving the newest.
    const revisions = await revisionsOf(replica("tool-registry", "b"));
    expect(revisions.map((r) => r.revision_number)).toEqual(revisions.map((_, i) => revisions[0]!.revision_number - i));
    expect((await catalogOf(replica("tool-registry", "b"))).revision_number).toBe(revisions[0]!.revision_number);

    // The survivors keep serving: a round of each operation, every one answered.
    const after = noneAcked();
    const round = load(after, "after");
    await progress(after, 30, 4);
    await round.stop();
    expect(after.failures).toBe(0);
    expect([...after.mcpCalls.keys()]).toEqual(["mcp-server-b"]);

    // And through the other agent replica: a restarted, b killed, every run read through a alone.
    const agentA = replica("agent", "a");
    await agentA.spawn();
    await replica("agent", "b").kill();
    await expectReadable([...runs, ...after.runs]);
    console.log(
      `kill: ${during.puts.length} puts and ${during.runs.length} runs acknowledged during the load (${putsAtKill} puts, ${runsAtKill} runs before the SIGKILL), ` +
        `${during.failures} requests unanswered around it, ${lost.length} acknowledged writes lost; after: ${after.puts.length} puts, ${after.runs.length} runs, ${after.toolCalls} tool calls, ` +
        `MCP tool calls ${mcpCallsLine(after)}, 0 failures; ${runs.length + after.runs.length} runs read through agent b alone, then through agent a alone`,
    );
  });
});
