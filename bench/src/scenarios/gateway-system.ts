import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ServiceProcess, waitFor, requestTopic, responseTopic } from "@toolmesh/test-support";
import type { ServiceRuntime } from "@toolmesh/base";
import { BenchTool, benchRuntime } from "../bench-tool.js";
import { type TransportKind, assertTransport, transportEnv } from "../transports.js";
import { benchRequestWire } from "../workload.js";
import type { BenchContext } from "./types.js";

export interface GatewaySystem {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  gateway: ServiceProcess;
  /** The tool-service id the gateway routes to the bench tool (`/api/v1/flow/default/service/<id>`). */
  serviceId: string;
  stop(): Promise<void>;
}

export interface ConfigService {
  process: ServiceProcess;
  stop(): Promise<void>;
}

/** Environment that makes a child write a CPU profile on exit (see cpu-profile-preload.ts), when asked for. */
export function profileEnv(ctx: BenchContext, name: string): Record<string, string> {
  if (!ctx.profileDir) return {};
  const preload = fileURLToPath(new URL("../cpu-profile-preload.js", import.meta.url));
  return { NODE_OPTIONS: `--import=${preload}`, BENCH_PROFILE_DIR: ctx.profileDir, BENCH_PROFILE_NAME: name };
}

/**
 * The real config service as a process. Every gateway system of a run shares it: a second one would
 * share its request topic (and answer half the requests from another store). It is not on the measured
 * path, so it runs on the WebSocket transport whatever the gateways use.
 */
export async function startConfigService(ctx: BenchContext): Promise<ConfigService> {
  const dataDir = mkdtempSync(join(tmpdir(), "toolmesh-bench-config-"));
  try {
    const service = await ServiceProcess.start({
      service: "config",
      env: { ...transportEnv(ctx, "websocket"), LOG_LEVEL: "warn", CONFIG_DATA_DIR: dataDir },
    });
    return {
      process: service,
      stop: async () => {
        await service.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * The real api-gateway as a process (as operators run it) on the transport `kind`, the trivial tool
 * in-process on the same transport, and the tool's `tool-service` descriptor stored through the gateway
 * itself, under an id of its own per transport.
 */
export async function startGatewaySystem(ctx: BenchContext, kind: TransportKind = "websocket"): Promise<GatewaySystem> {
  const suffix = kind === "websocket" ? "" : `-${kind}`;
  const serviceId = `bench-tool${suffix}`;
  let gateway: ServiceProcess | undefined;
  let runtime: ServiceRuntime | undefined;
  const stop = async () => {
    await gateway?.stop();
    await runtime?.stop();
  };
  try {
    gateway = await ServiceProcess.start({
      service: "api-gateway",
      env: { ...transportEnv(ctx, kind), LOG_LEVEL: "warn", ...profileEnv(ctx, `api-gateway${suffix}`) },
    });
    runtime = benchRuntime(ctx, kind, `bench-gateway-tools${suffix}`);
    const tool = new BenchTool();
    await tool.start(runtime, { announce: false });

    const put = await fetch(`${gateway.url}/api/v1/flow/default/service/config`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        operation: "put",
        values: [{ type: "tool-service", key: serviceId, value: JSON.stringify({ id: serviceId, topic: tool.topic }) }],
      }),
    });
    const putBody = (await put.json()) as { error?: unknown };
    if (!put.ok || putBody.error) throw new Error(`descriptor put failed: HTTP ${put.status} ${JSON.stringify(putBody)}`);
    // The gateway reads descriptors from its config view, which reloads on the config push.
    const url = gateway.url;
    await waitFor(
      async () => {
        const response = await fetch(`${url}/api/v1/flow/default/service/${serviceId}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(benchRequestWire(0)),
        });
        return response.ok;
      },
      { timeoutMs: 20_000, intervalMs: 200, description: "the gateway to route to the bench tool" },
    );
    for (const topic of [requestTopic(tool.topic), responseTopic(tool.topic)])
      await assertTransport(ctx, topic, kind, `gateway on ${kind}`);
    return { url, gateway, serviceId, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
