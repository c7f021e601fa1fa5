import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { REPO_ROOT, TEST_BROKER, brokerServiceUrl, useBroker } from "@toolmesh/test-support";
import { listenerPid } from "./listener-pid.js";
import { type CallRow, callTable, callTarget, registryTable, servicesTable, storesTable } from "./report.js";
import { startBaseline } from "./scenarios/baseline.js";
import { startBinaryRaw } from "./scenarios/binary-raw.js";
import { type ServiceFootprint, serviceFootprints } from "./scenarios/footprint.js";
import { gatewayRest } from "./scenarios/gateway-rest.js";
import { gatewaySocket } from "./scenarios/gateway-socket.js";
import { type ConfigService, type GatewaySystem, startConfigService, startGatewaySystem } from "./scenarios/gateway-system.js";
import { startOfficialRaw } from "./scenarios/official-raw.js";
import { type RefreshTiming, registryRefresh } from "./scenarios/registry.js";
import { type StoreRate, storeRates } from "./scenarios/stores.js";
import { type McpCallTarget, startMcpCall } from "./scenarios/mcp-call.js";
import { startToolCall } from "./scenarios/tool-call.js";
import { startToolCallTraced } from "./scenarios/tool-call-traced.js";
import type { BenchContext, CallTarget } from "./scenarios/types.js";
import { type TransportKind, binaryTransportClass } from "./transports.js";
import { type LoadResult, combineRounds, runLoad } from "./stats.js";

const RESULTS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../results");

const CALL_SCENARIOS = [
  "baseline",
  "baseline-coalesced",
  "official-raw",
  "binary-raw",
  "tool-call",
  "tool-call-binary",
  "tool-call-traced",
  "tool-call-binary-traced",
  "gateway-rest",
  "gateway-socket",
  "gateway-rest-binary",
  "gateway-socket-binary",
  "mcp-call",
] as const;
type CallScenario = (typeof CALL_SCENARIOS)[number];
const onBinary = (scenario: CallScenario) => scenario === "binary-raw" || scenario.endsWith("-binary") || scenario.includes("-binary-");

/** Knobs (environment): what to run and how much; defaults are the issue's. */
function settings() {
  const list = (v: string | undefined) =>
    v
      ? v
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean)
      : undefined;
  const only = list(process.env.BENCH_ONLY);
  const wants = (name: string) => !only || only.includes(name);
  return {
    // Every ratio is to the baseline of the same run: leave it out of BENCH_ONLY only to profile the others.
    callScenarios: CALL_SCENARIOS.filter(wants),
    registry: wants("registry"),
    stores: wants("stores"),
    storeOps: Number(process.env.BENCH_STORE_OPS ?? 2_000),
    storeConcurrency: (list(process.env.BENCH_STORE_CONCURRENCY) ?? ["1", "8"]).map(Number),
    services: wants("services"),
    concurrency: (list(process.env.BENCH_CONCURRENCY) ?? ["1", "8", "32"]).map(Number),
    calls: Number(process.env.BENCH_CALLS ?? 2_000),
    rounds: Number(process.env.BENCH_ROUNDS ?? 3),
    capMs: Number(process.env.BENCH_CAP_MS ?? 60_000),
    registrySizes: (list(process.env.BENCH_REGISTRY_SIZES) ?? ["1000", "10000"]).map(Number),
    profile: process.env.BENCH_CPU_PROF === "1",
  };
}

function gitState(): { commit: string; dirty: boolean } {
  try {
    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: REPO_ROOT, encoding: "utf8" }).trim();
    const dirty =
      execFileSync("git", ["status", "--porcelain", "--", "packages", "services"], { cwd: REPO_ROOT, encoding: "utf8" }).trim() !== "";
    return { commit, dirty };
  } catch {
    return { commit: "unknown", dirty: true };
  }
}

/**
 * The broker's JVM (its CPU is charged to the calls): the test broker's pid file, else the local process
 * listening on the web port (e.g. a test broker started from another checkout).
 */
function brokerPid(webServiceUrl: string): number | undefined {
  const url = new URL(webServiceUrl);
  if (url.hostname !== "127.0.0.1" && url.hostname !== "localhost") return undefined;
  if (webServiceUrl === `http://127.0.0.1:${TEST_BROKER.webPort}`) {
    try {
      const pid = Number(readFileSync(join(TEST_BROKER.home, "pulsar.pid"), "utf8").trim());
      if (pid) return pid;
    } catch {
      // not started from this checkout
    }
  }
  return listenerPid(Number(url.port || 80));
}

const log = (message: string) => process.stderr.write(`bench: ${message}\n`);

/** The target with a close() that runs once, however many rows share it. */
function closedOnce(target: CallTarget): CallTarget {
  let closing: Promise<void> | undefined;
  return { ...target, close: () => (closing ??= target.close()) };
}

/**
 * Call scenarios interleaved per concurrency level (baseline, toolmesh, gateway REST, gateway socket at
 * c=1, then all at c=8, ...), so a change in machine load hits them alike and the ratios stay fair.
 */
async function runCalls(ctx: BenchContext, s: ReturnType<typeof settings>, skipped: string[]): Promise<CallRow[]> {
  const targets = new Map<CallScenario, CallTarget>();
  let config: ConfigService | undefined;
  const systems = new Map<TransportKind, GatewaySystem>();
  let mcp: McpCallTarget | undefined;
  const system = async (kind: TransportKind) => {
    config ??= await startConfigService(ctx);
    if (!systems.has(kind)) systems.set(kind, await startGatewaySystem(ctx, kind));
    return systems.get(kind)!;
  };
  // One client and tool per transport for `tool-call` and its traced twin: the two rows then differ by
  // tracing alone, not by where their connections landed (two separately started pairs differed by up to
  // 15% at c=32 with tracing off in both).
  const toolCalls = new Map<TransportKind, Promise<CallTarget>>();
  const toolCall = (kind: TransportKind) => {
    if (!toolCalls.has(kind)) toolCalls.set(kind, startToolCall(ctx, kind).then(closedOnce));
    return toolCalls.get(kind)!;
  };
  const start: Record<CallScenario, () => Promise<CallTarget>> = {
    baseline: () => startBaseline(ctx),
    "baseline-coalesced": () => startBaseline(ctx, { coalesce: true }),
    "official-raw": () => startOfficialRaw(ctx),
    "binary-raw": () => startBinaryRaw(ctx),
    "tool-call": () => toolCall("websocket"),
    "tool-call-binary": () => toolCall("binary"),
    "tool-call-traced": async () => startToolCallTraced(await toolCall("websocket"), "websocket"),
    "tool-call-binary-traced": async () => startToolCallTraced(await toolCall("binary"), "binary"),
    "gateway-rest": async () => gatewayRest(await system("websocket")),
    "gateway-socket": async () => gatewaySocket(await system("websocket")),
    "gateway-rest-binary": async () => gatewayRest(await system("binary")),
    "gateway-socket-binary": async () => gatewaySocket(await system("binary")),
    "mcp-call": async () => (mcp = await startMcpCall(ctx)),
  };
  // The front door's process: the api-gateway, or the mcp-server for MCP calls.
  const gatewayPid = (scenario: CallScenario) =>
    scenario === "mcp-call"
      ? mcp?.serverPid
      : scenario.startsWith("gateway-")
        ? systems.get(onBinary(scenario) ? "binary" : "websocket")?.gateway.pid
        : undefined;
  try {
    const binary = binaryTransportClass() !== undefined;
    for (const scenario of s.callScenarios) {
      if (onBinary(scenario) && !binary) {
        skipped.push(`${scenario}: @toolmesh/pulsar has no BinaryTransport yet`);
        continue;
      }
      log(`starting ${scenario}`);
      try {
        targets.set(scenario, await start[scenario]());
      } catch (err) {
        // The anchor needs Python's pulsar-client; without it the run goes on and says so.
        if (scenario !== "official-raw") throw err;
        skipped.push(`${scenario}: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`);
      }
    }
    const broker = brokerPid(ctx.webServiceUrl);
    if (!broker) log("no local broker process found: the broker CPU column stays empty");
    const results = new Map<string, LoadResult[]>();
    const order = [...targets.keys()];
    for (let round = 0; round < s.rounds; round++) {
      for (const concurrency of s.concurrency) {
        // Each round starts with a different scenario, so none is always the one after a given other.
        for (let k = 0; k < order.length; k++) {
          const scenario = order[(k + round) % order.length]!;
          const target = targets.get(scenario)!;
          const options = {
            concurrency,
            calls: s.calls,
            warmup: Math.max(200, 10 * concurrency),
            capMs: s.capMs,
            pids: { broker, gateway: gatewayPid(scenario) },
          };
          target.enter?.();
          let result: LoadResult;
          try {
            result = target.runLoad ? await target.runLoad(options) : await runLoad((i) => target.call(i), options);
          } finally {
            target.leave?.();
          }
          const key = `${scenario} ${concurrency}`;
          results.set(key, [...(results.get(key) ?? []), result]);
          log(
            `round ${round + 1} ${scenario} c=${concurrency}: p50 ${result.p50.toFixed(2)} ms, ${result.callsPerSec.toFixed(0)} calls/s, CPU ${result.cpu.perCallUs.bench?.toFixed(0)} µs/call (GC pauses ${result.cpu.gcPauseUs.toFixed(1)}), ${result.errors} errors${result.firstError ? ` (${result.firstError})` : ""}`,
          );
        }
      }
    }
    const rows: CallRow[] = [];
    for (const concurrency of s.concurrency) {
      const combined = new Map(order.map((scenario) => [scenario as string, combineRounds(results.get(`${scenario} ${concurrency}`)!)]));
      for (const scenario of order) {
        const row = combined.get(scenario)!;
        rows.push({ scenario, ...row, ...callTarget(scenario, row, (other) => combined.get(other)) });
      }
    }
    return rows;
  } finally {
    for (const target of targets.values()) await target.close().catch((err: unknown) => log(`close failed: ${String(err)}`));
    for (const started of systems.values()) await started.stop();
    await config?.stop();
  }
}

export async function main(): Promise<number> {
  const s = settings();
  const startedAt = new Date();
  const stamp = startedAt.toISOString().replace(/[:.]/g, "-");
  const profileDir = s.profile ? join(RESULTS_DIR, "profiles", stamp) : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });

  const broker = await useBroker();
  const tenant = process.env.TOOLMESH_TENANT!;
  const serviceUrl = await brokerServiceUrl(broker.webServiceUrl);
  const ctx: BenchContext = { webServiceUrl: broker.webServiceUrl, serviceUrl, tenant, profileDir };
  log(
    `broker ${ctx.webServiceUrl} ${serviceUrl}, tenant ${tenant}, ${cpus().length} cpus, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );

  const load: Record<string, number[]> = { start: loadavg() };
  const skipped: string[] = [];
  const calls = s.callScenarios.length ? await runCalls(ctx, s, skipped) : [];
  load.afterCalls = loadavg();
  const registry: RefreshTiming[] = [];
  if (s.registry) {
    for (const size of s.registrySizes) {
      log(`registry refresh of ${size} tools`);
      registry.push(...(await registryRefresh(size)));
    }
  }
  load.afterRegistry = loadavg();
  let stores: StoreRate[] = [];
  if (s.stores) {
    log("config puts and agent runs on SQLite and PostgreSQL");
    stores = await storeRates(s.storeOps, s.storeConcurrency);
  }
  let services: ServiceFootprint[] = [];
  if (s.services) {
    log("service cold starts and idle RSS");
    services = await serviceFootprints(ctx);
  }
  load.end = loadavg();

  const out = [
    `toolmesh bench ${startedAt.toISOString()}  broker ${ctx.webServiceUrl}  ${cpus().length} cpus  node ${process.version}`,
    `call figures: median of ${s.rounds} interleaved rounds of ${s.calls} calls per scenario and concurrency (after a warm-up)`,
    `load average (1/5/15 min) at start: ${load.start!.map((l) => l.toFixed(2)).join(" ")}  at end: ${load.end.map((l) => l.toFixed(2)).join(" ")}`,
  ];
  if (calls.length) out.push("", callTable(calls));
  for (const reason of skipped) out.push(`skipped ${reason}`);
  if (registry.length) out.push("", registryTable(registry));
  if (stores.length) out.push("", storesTable(stores));
  if (services.length) out.push("", servicesTable(services));
  console.log(out.join("\n"));

  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${stamp}.json`);
  const report = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, loadavg: load },
    git: gitState(),
    broker: ctx.webServiceUrl,
    tenant,
    settings: s,
    calls,
    skipped,
    registry,
    stores,
    services,
    ...(profileDir ? { profileDir } : {}),
  };
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\nresults: ${file}`);
  const failed = calls.some((r) => r.errors > 0);
  return failed ? 1 : 0;
}
