import { spawn } from "node:child_process";
import { dirname, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import pino from "pino";
import { BaseEnv, DynamicToolService, ServiceRuntime, ToolServiceClient, type TracesSampler, parseEnv } from "@toolmesh/base";
import { Tracing } from "@toolmesh/base/tracing";
import { MemoryBroker, MemoryTransport, PulsarClient } from "@toolmesh/pulsar";

/**
 * Where tracing's CPU goes, without a broker: tool calls (client and DynamicToolService in this process)
 * over the in-memory transport at TRACING_COST_CONCURRENCY (32), CPU time per call with tracing off, with the SDK
 * registered but sampling nothing (`always_off`: `traceparent` and unsampled spans), with one trace in ten
 * recorded (`parentbased_traceidratio` 0.1, head sampling as production runs it), and with every span
 * recorded and exported over OTLP/protobuf to the sink process; TRACING_COST_RATIOS (e.g. `0,0.01,0.5`) adds a
 * `parentbased_traceidratio` mode per ratio. Modes interleave over TRACING_COST_ROUNDS
 * (21) rounds of TRACING_COST_CALLS (4,000) calls; the medians print. `node dist/tracing-cost.js` after a build.
 */
class EchoTool extends DynamicToolService {
  readonly id = "cost-tool";
  readonly topic = "cost";
  async invoke(_user: string, _config: Record<string, unknown>, args: Record<string, unknown>) {
    return `ok ${String(args.n)}`;
  }
}

const sinkProcess = spawn(process.execPath, [resolve(dirname(fileURLToPath(import.meta.url)), "otlp-sink.js")], {
  stdio: ["ignore", "pipe", "inherit"],
});
const sinkLines = createInterface({ input: sinkProcess.stdout! })[Symbol.asyncIterator]();
const sinkUrl = /^listening (\S+)$/.exec(String((await sinkLines.next()).value))![1]!;

const broker = new MemoryBroker();
const env = parseEnv(BaseEnv, { HTTP_PORT: "0" });
const runtime = new ServiceRuntime({ name: "cost", env, logger: pino({ level: "warn" }), transport: new MemoryTransport({ broker }) });
await new EchoTool().start(runtime, { announce: false });
const pulsar = new PulsarClient({ webServiceUrl: "memory://", transport: new MemoryTransport({ broker }) });
const client = await ToolServiceClient.create(pulsar, {
  requestTopic: "non-persistent://tg/request/cost",
  responseTopic: "non-persistent://tg/response/cost",
});

/** An SDK made with the sampler `sampler` (the SDK reads OTEL_TRACES_SAMPLER(_ARG) when it is made), left off. */
function sdk(sampler: TracesSampler, ratio?: string): Tracing {
  process.env.OTEL_TRACES_SAMPLER = sampler;
  if (ratio) process.env.OTEL_TRACES_SAMPLER_ARG = ratio;
  const tracing = Tracing.start({
    serviceName: "cost",
    exporter: "otlp",
    protocol: "http/protobuf",
    url: `${sinkUrl}/v1/traces`,
    sampler,
    samplerArg: ratio === undefined ? undefined : Number(ratio),
  });
  delete process.env.OTEL_TRACES_SAMPLER;
  delete process.env.OTEL_TRACES_SAMPLER_ARG;
  Tracing.unregister();
  return tracing;
}
const modes: Array<[string, Tracing | undefined]> = [
  ["off", undefined],
  ["sdk, always_off sampler", sdk("always_off")],
  ["sdk, 10% of traces exported", sdk("parentbased_traceidratio", "0.1")],
  ["sdk, every span exported", sdk("parentbased_always_on")],
  ...(process.env.TRACING_COST_RATIOS ?? "")
    .split(",")
    .filter(Boolean)
    .map((ratio): [string, Tracing] => [`sdk, ratio ${ratio}`, sdk("parentbased_traceidratio", ratio)]),
];

/** CPU µs per call over `calls` calls, `concurrency` at once. */
async function cpuPerCall(calls: number, concurrency: number): Promise<number> {
  let next = 0;
  const before = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < calls) await client.call("bench", {}, { n: next++ });
    }),
  );
  const used = process.cpuUsage(before);
  return (used.user + used.system) / calls;
}

// Many short rounds, the order reversed every other round, and "off" measured twice: the two off rows
// differ only by the machine's noise, which shows how far apart two rows must be to mean anything.
const rounds = Number(process.env.TRACING_COST_ROUNDS ?? 21);
const callsPerRound = Number(process.env.TRACING_COST_CALLS ?? 4_000);
const concurrency = Number(process.env.TRACING_COST_CONCURRENCY ?? 32);
const measured: Array<[string, Tracing | undefined]> = [...modes, ["off, again (noise)", undefined]];
const results = new Map<string, number[]>();
for (let round = 0; round < rounds; round++) {
  for (const [name, tracing] of round % 2 === 0 ? measured : [...measured].reverse()) {
    tracing?.register();
    await cpuPerCall(500, concurrency); // warm-up after the switch
    results.set(name, [...(results.get(name) ?? []), await cpuPerCall(callsPerRound, concurrency)]);
    if (tracing) {
      await tracing.flush();
      Tracing.unregister();
    }
  }
}
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const median = (values: number[]) => sorted(values)[Math.floor(values.length / 2)]!;
const quartiles = (values: number[]): [number, number] => [
  sorted(values)[Math.floor(values.length / 4)]!,
  sorted(values)[Math.floor((3 * values.length) / 4)]!,
];
console.log(`${rounds} rounds of ${callsPerRound} calls per mode, concurrency ${concurrency}; medians, with the middle half of the rounds`);
const off = median(results.get("off")!);
for (const [name, values] of results) {
  const us = median(values);
  const [q1, q3] = quartiles(values);
  console.log(
    `${name.padEnd(30)} ${us.toFixed(1).padStart(6)} µs cpu/call  ${`+${(us - off).toFixed(1)}`.padStart(6)} µs  (${(us / off).toFixed(2)}× off; ${q1.toFixed(0)}-${q3.toFixed(0)})`,
  );
}
await client.close();
await pulsar.close();
await runtime.stop();
for (const [, tracing] of modes) await tracing?.shutdown();
sinkProcess.kill("SIGTERM");
console.log(`the OTLP sink ${String((await sinkLines.next()).value)} spans`);
process.exit(0);
