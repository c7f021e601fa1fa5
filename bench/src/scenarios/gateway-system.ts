import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ServiceProcess, waitFor } from "@toolmesh/test-support";
import type { ServiceRuntime } from "@toolmesh/base";
import { BenchTool, benchRuntime } from "../bench-tool.js";
import { benchRequestWire } from "../workload.js";
import type { BenchContext } from "./types.js";

export const BENCH_SERVICE_ID = "bench-tool";

export interface GatewaySystem {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  gateway: ServiceProcess;
  stop(): Promise<void>;
}

/** Environment that makes a child write a CPU profile on exit (see cpu-profile-preload.ts), when asked for. */
export function profileEnv(ctx: BenchContext, name: string): Record<string, string> {
  if (!ctx.profileDir) return {};
  const preload = fileURLToPath(new URL("../cpu-profile-preload.js", import.meta.url));
  return { NODE_OPTIONS: `--import=${preload}`, BENCH_PROFILE_DIR: ctx.profileDir, BENCH_PROFILE_NAME: name };
}

/**
 * The real config service and api-gateway as processes (as operators run them), the trivial tool
 * in-process, and the tool's `tool-service` descriptor stored through the gateway itself.
 */
export async function startGatewaySystem(ctx: BenchContext): Promise<GatewaySystem> {
  const dataDir = mkdtempSync(join(tmpdir(), "toolmesh-bench-config-"));
  const base = { PULSAR_WEB_URL: ctx.webServiceUrl, LOG_LEVEL: "warn" };
  let config: ServiceProcess | undefined;
  let gateway: ServiceProcess | undefined;
  let runtime: ServiceRuntime | undefined;
  const stop = async () => {
    await gateway?.stop();
    await config?.stop();
    await runtime?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    config = await ServiceProcess.start({ service: "config", env: { ...base, CONFIG_DATA_DIR: dataDir } });
    gateway = await ServiceProcess.start({ service: "api-gateway", env: { ...base, ...profileEnv(ctx, "api-gateway") } });
    runtime = benchRuntime(ctx.webServiceUrl, "bench-gateway-tools");
    const tool = new BenchTool();
    await tool.start(runtime, { announce: false });

    const put = await fetch(`${gateway.url}/api/v1/flow/default/service/config`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        operation: "put",
        values: [{ type: "tool-service", key: BENCH_SERVICE_ID, value: JSON.stringify({ id: BENCH_SERVICE_ID, topic: tool.topic }) }],
      }),
    });
    const putBody = (await put.json()) as { error?: unknown };
    if (!put.ok || putBody.error) throw new Error(`descriptor put failed: HTTP ${put.status} ${JSON.stringify(putBody)}`);
    // The gateway reads descriptors from its config view, which reloads on the config push.
    const url = gateway.url;
    await waitFor(
      async () => {
        const response = await fetch(`${url}/api/v1/flow/default/service/${BENCH_SERVICE_ID}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(benchRequestWire(0)),
        });
        return response.ok;
      },
      { timeoutMs: 20_000, intervalMs: 200, description: "the gateway to route to the bench tool" },
    );
    return { url, gateway, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
