import { randomUUID } from "node:crypto";
import pino from "pino";
import { BaseEnv, DynamicToolService, ServiceRuntime, parseEnv } from "@toolmesh/base";
import type { BenchContext } from "./scenarios/types.js";
import { type TransportKind, transportEnv } from "./transports.js";
import { benchAnswer } from "./workload.js";

/** The trivial tool service: answers at once, so what is measured is toolmesh and the broker. */
export class BenchTool extends DynamicToolService {
  readonly id = `bench-tool-${randomUUID().slice(0, 8)}`;
  readonly topic = `bench-${randomUUID().slice(0, 8)}`;
  // The default (8) unless an experiment sets BENCH_TOOL_CONCURRENCY.
  override concurrency: number = Number(process.env.BENCH_TOOL_CONCURRENCY ?? 8);

  async invoke(_user: string, _config: Record<string, unknown>, args: Record<string, unknown>) {
    return benchAnswer(args);
  }
}

/**
 * A runtime (Pulsar client, metrics) for in-process tool services, on the transport the environment
 * selects as it would in a service process; its HTTP server never listens.
 */
export function benchRuntime(ctx: BenchContext, kind: TransportKind, name = "bench-tools"): ServiceRuntime {
  const env = parseEnv(BaseEnv, { ...transportEnv(ctx, kind), TOOLMESH_TENANT: ctx.tenant, HTTP_PORT: "0", LOG_LEVEL: "warn" });
  return new ServiceRuntime({ name, env, logger: pino({ level: "warn" }, pino.destination(2)) });
}
