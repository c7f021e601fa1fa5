import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { REPO_ROOT, ServiceProcess } from "@toolmesh/test-support";
import { median } from "../stats.js";
import type { BenchContext } from "./types.js";

export interface ServiceFootprint {
  service: string;
  /** Spawn -> first /readyz 200, per start (ServiceProcess polls every 100 ms: ±100 ms resolution). */
  coldStartsMs: number[];
  coldStartMs: number;
  /** VmRSS of the process after it has idled `idleMs` since ready. */
  idleRssMb: number;
  skipped?: string;
}

/** Config first: every other service is ready only once it has loaded config. */
const SERVICES = ["config", "joke-service", "tool-registry", "api-gateway", "mcp-tool", "agent"];

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  if (!kb) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb) / 1024;
}

function serviceEnv(service: string, ctx: BenchContext, dataDir: string): Record<string, string> {
  const env: Record<string, string> = { PULSAR_WEB_URL: ctx.webServiceUrl };
  if (service === "config") env.CONFIG_DATA_DIR = join(dataDir, "config");
  if (service === "tool-registry") env.REGISTRY_DATA_DIR = join(dataDir, "tool-registry");
  if (service === "agent") env.AGENT_DATA_DIR = join(dataDir, "agent");
  return env;
}

/**
 * Each built service as its own process: `starts` cold starts (spawn -> /readyz 200), the last one left
 * running; then its RSS after `idleMs` idle. The services stay up until all are measured (the later
 * ones need config), then stop.
 */
export async function serviceFootprints(ctx: BenchContext, { starts = 3, idleMs = 3_000 } = {}): Promise<ServiceFootprint[]> {
  const dataDir = mkdtempSync(join(tmpdir(), "toolmesh-bench-services-"));
  const running: ServiceProcess[] = [];
  const results: ServiceFootprint[] = [];
  try {
    for (const service of SERVICES) {
      if (!existsSync(resolve(REPO_ROOT, "services", service, "dist/main.js"))) {
        results.push({
          service,
          coldStartsMs: [],
          coldStartMs: Number.NaN,
          idleRssMb: Number.NaN,
          skipped: `services/${service}/dist/main.js missing`,
        });
        continue;
      }
      const env = serviceEnv(service, ctx, dataDir);
      const coldStartsMs: number[] = [];
      let instance: ServiceProcess | undefined;
      for (let n = 0; n < starts; n++) {
        await instance?.stop();
        const started = performance.now();
        try {
          if (instance) await instance.spawn();
          else instance = await ServiceProcess.start({ service, env, timeoutMs: 20_000 });
        } catch (err) {
          results.push({
            service,
            coldStartsMs,
            coldStartMs: Number.NaN,
            idleRssMb: Number.NaN,
            skipped: `did not become ready: ${(err as Error).message.split("\n")[0]}`,
          });
          instance = undefined;
          break;
        }
        coldStartsMs.push(performance.now() - started);
      }
      if (!instance?.pid) continue;
      running.push(instance);
      await new Promise((r) => setTimeout(r, idleMs));
      results.push({ service, coldStartsMs, coldStartMs: median(coldStartsMs), idleRssMb: rssMb(instance.pid) });
    }
    return results;
  } finally {
    for (const instance of running.reverse()) await instance.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
