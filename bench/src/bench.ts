import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { REPO_ROOT, TEST_BROKER, useBroker } from "@toolmesh/test-support";
import { type CallRow, callTable, callTarget, registryTable, servicesTable } from "./report.js";
import { startBaseline } from "./scenarios/baseline.js";
import { type ServiceFootprint, serviceFootprints } from "./scenarios/footprint.js";
import { gatewayRest } from "./scenarios/gateway-rest.js";
import { gatewaySocket } from "./scenarios/gateway-socket.js";
import { type GatewaySystem, startGatewaySystem } from "./scenarios/gateway-system.js";
import { type RefreshTiming, registryRefresh } from "./scenarios/registry.js";
import { type McpCallTarget, startMcpCall } from "./scenarios/mcp-call.js";
import { startToolCall } from "./scenarios/tool-call.js";
import type { BenchContext, CallTarget } from "./scenarios/types.js";
import { type LoadResult, combineRounds, runLoad } from "./stats.js";

const RESULTS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../results");

const CALL_SCENARIOS = ["baseline", "baseline-coalesced", "tool-call", "gateway-rest", "gateway-socket", "mcp-call"] as const;
type CallScenario = (typeof CALL_SCENARIOS)[number];

/** Knobs (environment): what to run and how much; defaults are the issue's. */
function settings() {
  const list = (v: string | undefined) => (v ? v.split(",").map((s) => s.trim()).filter(Boolean) : undefined);
  const only = list(process.env.BENCH_ONLY);
  const wants = (name: string) => !only || only.includes(name);
  return {
    // Every ratio is to the baseline of the same run: leave it out of BENCH_ONLY only to profile the others.
    callScenarios: CALL_SCENARIOS.filter(wants),
    registry: wants("registry"),
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
    const dirty = execFileSync("git", ["status", "--porcelain", "--", "packages", "services"], { cwd: REPO_ROOT, encoding: "utf8" }).trim() !== "";
    return { commit, dirty };
  } catch {
    return { commit: "unknown", dirty: true };
  }
}

/** The test broker's JVM, when that is the broker in use (its CPU is charged to the calls). */
function brokerPid(webServiceUrl: string): number | undefined {
  if (webServiceUrl !== `http://127.0.0.1:${TEST_BROKER.webPort}`) return undefined;
  try {
    return Number(readFileSync(join(TEST_BROKER.home, "pulsar.pid"), "utf8").trim()) || undefined;
  } catch {
    return undefined;
  }
}

const log = (message: string) => process.stderr.write(`bench: ${message}\n`);

/**
 * Call scenarios interleaved per concurrency level (baseline, toolmesh, gateway REST, gateway socket at
 * c=1, then all at c=8, ...), so a change in machine load hits them alike and the ratios stay fair.
 */
async function runCalls(ctx: BenchContext, s: ReturnType<typeof settings>): Promise<CallRow[]> {
  const targets = new Map<CallScenario, CallTarget>();
  let system: GatewaySystem | undefined;
  let mcp: McpCallTarget | undefined;
  try {
    for (const scenario of s.callScenarios) {
      log(`starting ${scenario}`);
      if (scenario === "baseline") targets.set(scenario, await startBaseline(ctx));
      if (scenario === "baseline-coalesced") targets.set(scenario, await startBaseline(ctx, { coalesce: true }));
      if (scenario === "tool-call") targets.set(scenario, await startToolCall(ctx));
      if (scenario.startsWith("gateway-")) system ??= await startGatewaySystem(ctx);
      if (scenario === "gateway-rest") targets.set(scenario, gatewayRest(system!));
      if (scenario === "gateway-socket") targets.set(scenario, await gatewaySocket(system!));
      if (scenario === "mcp-call") targets.set(scenario, (mcp = await startMcpCall(ctx)));
    }
    const results = new Map<string, LoadResult[]>();
    const order = [...targets.keys()];
    for (let round = 0; round < s.rounds; round++) {
      for (const concurrency of s.concurrency) {
        // Each round starts with a different scenario, so none is always the one after a given other.
        for (let k = 0; k < order.length; k++) {
          const scenario = order[(k + round) % order.length]!;
          const result = await runLoad((i) => targets.get(scenario)!.call(i), {
            concurrency,
            calls: s.calls,
            warmup: Math.max(200, 10 * concurrency),
            capMs: s.capMs,
            // The front door's process: the api-gateway, or the mcp-server for MCP calls.
            pids: {
              broker: brokerPid(ctx.webServiceUrl),
              ...(scenario.startsWith("gateway-") ? { gateway: system?.gateway.pid } : {}),
              ...(scenario === "mcp-call" ? { gateway: mcp?.serverPid } : {}),
            },
          });
          const key = `${scenario} ${concurrency}`;
          results.set(key, [...(results.get(key) ?? []), result]);
          log(`round ${round + 1} ${scenario} c=${concurrency}: p50 ${result.p50.toFixed(2)} ms, ${result.callsPerSec.toFixed(0)} calls/s, ${result.errors} errors${result.firstError ? ` (${result.firstError})` : ""}`);
        }
      }
    }
    const rows: CallRow[] = [];
    for (const concurrency of s.concurrency) {
      const p50Of = (scenario: CallScenario) => {
        const rounds = results.get(`${scenario} ${concurrency}`);
        return rounds ? combineRounds(rounds).p50 : Number.NaN;
      };
      for (const scenario of order) {
        const combined = combineRounds(results.get(`${scenario} ${concurrency}`)!);
        rows.push({ scenario, ...combined, ...callTarget(scenario, combined, p50Of("baseline"), p50Of("baseline-coalesced"), p50Of("tool-call")) });
      }
    }
    return rows;
  } finally {
    for (const target of targets.values()) await target.close().catch((err: unknown) => log(`close failed: ${String(err)}`));
    await system?.stop();
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
  const ctx: BenchContext = { webServiceUrl: broker.webServiceUrl, tenant, profileDir };
  log(`broker ${ctx.webServiceUrl}, tenant ${tenant}, ${cpus().length} cpus, load ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);

  const load: Record<string, number[]> = { start: loadavg() };
  const calls = s.callScenarios.length ? await runCalls(ctx, s) : [];
  load.afterCalls = loadavg();
  const registry: RefreshTiming[] = [];
  if (s.registry) {
    for (const size of s.registrySizes) {
      log(`registry refresh of ${size} tools`);
      registry.push(...(await registryRefresh(size)));
    }
  }
  load.afterRegistry = loadavg();
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
  if (registry.length) out.push("", registryTable(registry));
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
    registry,
    services,
    ...(profileDir ? { profileDir } : {}),
  };
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\nresults: ${file}`);
  const failed = calls.some((r) => r.errors > 0);
  return failed ? 1 : 0;
}
