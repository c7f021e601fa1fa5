import { randomUUID } from "node:crypto";
import { INVALID_SPAN_CONTEXT, ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, SamplingDecision, TraceIdRatioBasedSampler } from "@opentelemetry/sdk-trace-node";
import pino from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { MemoryBroker, MemoryTransport, PulsarClient } from "@toolmesh/pulsar";
import {
  EmbeddedEnv,
  DynamicToolService,
  type InvocationContext,
  ServiceRuntime,
  ToolServiceClient,
  type TracesSampler,
  extractTraceContext,
  parseEnv,
} from "../../src/index.js";
import { Tracing } from "../../src/tracing.js";
import { requestTopic, serviceTopics } from "@toolmesh/test-support";

// Spans under an unsampled parent are skipped when the sampler is parent-based (they would record nothing),
// and made as usual when the sampler may sample them anyway. Either way the trace id travels on.

const broker = new MemoryBroker();
const env = parseEnv(EmbeddedEnv, {});
const vaultTopic = `vault-${randomUUID().slice(0, 8)}`;
const relayTopic = `relay-${randomUUID().slice(0, 8)}`;

class Vault extends DynamicToolService {
  readonly id = "vault";
  readonly topic = vaultTopic;
  async invoke() {
    return "kept";
  }
}

/** Calls the vault under its own request's trace context, as a tool that uses another tool does. */
class Relay extends DynamicToolService {
  readonly id = "relay";
  readonly topic = relayTopic;
  constructor(private readonly vault: () => ToolServiceClient) {
    super();
  }
  async invoke(user: string, _config: Record<string, unknown>, _args: Record<string, unknown>, context: InvocationContext) {
    return `relayed ${await this.vault().call(user, {}, {}, { trace: context.trace })}`;
  }
}

// A new one per SDK: shutting an SDK down stops its exporter.
let exporter = new InMemorySpanExporter();
const runtimes: ServiceRuntime[] = [];
const vaultRequests: Array<Record<string, string>> = [];
const relayRequests: Array<Record<string, string>> = [];
let pulsar: PulsarClient;
let toVault: ToolServiceClient;
let toRelay: ToolServiceClient;

beforeAll(async () => {
  const start = async (service: DynamicToolService) => {
    const runtime = new ServiceRuntime({
      name: service.id,
      env,
      logger: pino({ level: "silent" }),
      transport: new MemoryTransport({ broker }),
    });
    runtimes.push(runtime);
    await service.start(runtime, { announce: false });
  };
  pulsar = new PulsarClient({ webServiceUrl: "memory://", transport: new MemoryTransport({ broker }) });
  const clientFor = (topic: string) => ToolServiceClient.create(pulsar, { ...serviceTopics(topic), timeoutMs: 2_000 });
  toVault = await clientFor(vaultTopic);
  toRelay = await clientFor(relayTopic);
  await start(new Vault());
  await start(new Relay(() => toVault));
  await pulsar.subscribe({ topic: requestTopic(vaultTopic), subscription: "watcher", type: "Shared" }, async (message) => {
    vaultRequests.push(message.properties);
  });
  await pulsar.subscribe({ topic: requestTopic(relayTopic), subscription: "watcher", type: "Shared" }, async (message) => {
    relayRequests.push(message.properties);
  });
});

afterAll(async () => {
  await toRelay.close();
  await toVault.close();
  await pulsar.close();
  for (const runtime of runtimes) await runtime.stop();
});

let tracing: Tracing | undefined;
afterEach(async () => {
  // The unit tier shares one module cache per worker: shutdown() leaves no global tracer behind.
  await tracing?.shutdown();
  tracing = undefined;
});

/** Registers an SDK with `sampler` (the SDK reads OTEL_TRACES_SAMPLER when it is made), spans kept in memory. */
function traceWith(sampler: TracesSampler, samplerArg?: number): void {
  exporter = new InMemorySpanExporter();
  vaultRequests.length = 0;
  relayRequests.length = 0;
  const before = process.env.OTEL_TRACES_SAMPLER;
  process.env.OTEL_TRACES_SAMPLER = sampler;
  try {
    tracing = Tracing.start(
      { serviceName: "unit", exporter: "otlp", protocol: "http/protobuf", url: "http://unused", sampler, samplerArg },
      exporter,
    );
  } finally {
    if (before === undefined) delete process.env.OTEL_TRACES_SAMPLER;
    else process.env.OTEL_TRACES_SAMPLER = before;
  }
}

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID = "00f067aa0ba902b7";
/** A call made under the trace context a caller sent (`flags` 00: unsampled, 01: sampled). */
const callUnder = (flags: "00" | "01") =>
  toRelay.call("alice", {}, {}, { trace: extractTraceContext({ traceparent: `00-${TRACE_ID}-${PARENT_ID}-${flags}` }) });

/** The vault request's traceparent once the broker delivered it to the watcher. */
async function vaultTraceparent(): Promise<string | undefined> {
  await expect.poll(() => vaultRequests.length).toBe(1);
  return vaultRequests[0]!.traceparent;
}

describe("spans under an unsampled parent", () => {
  it("are skipped with a parent-based sampler: no span is made, the caller's traceparent goes on unchanged", async () => {
    traceWith("parentbased_always_on");
    expect(await callUnder("00")).toBe("relayed kept");
    expect(await vaultTraceparent()).toBe(`00-${TRACE_ID}-${PARENT_ID}-00`);
    await tracing!.flush();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it("are skipped for a trace its own root left unsampled: the root's trace id reaches the last hop", async () => {
    traceWith("parentbased_always_off");
    expect(await toRelay.call("alice", {}, {})).toBe("relayed kept");
    const traceparent = await vaultTraceparent();
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    // The root (the relay request) is the only span made: every hop after it sends the root's context.
    expect(relayRequests.map((p) => p.traceparent)).toEqual([traceparent]);
    await tracing!.flush();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it("are made as a new trace under the all-zero invalid context a no-op tracer hands out", async () => {
    traceWith("parentbased_always_on");
    const invalid = trace.setSpanContext(ROOT_CONTEXT, INVALID_SPAN_CONTEXT);
    expect(await toRelay.call("alice", {}, {}, { trace: invalid })).toBe("relayed kept");
    expect(await vaultTraceparent()).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    await tracing!.flush();
    expect(exporter.getFinishedSpans()).toHaveLength(4);
  });

  it("are made and recorded with a sampler that ignores the parent (always_on)", async () => {
    traceWith("always_on");
    expect(await callUnder("00")).toBe("relayed kept");
    await vaultTraceparent();
    await tracing!.flush();
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name).sort()).toEqual(
      [`${relayTopic} request`, `${relayTopic} serve`, `${vaultTopic} request`, `${vaultTopic} serve`].sort(),
    );
    expect(new Set(spans.map((s) => s.spanContext().traceId))).toEqual(new Set([TRACE_ID]));
  });
});

describe("spans under a sampled parent", () => {
  it("are made with a parent-based sampler, each the child of the one before", async () => {
    traceWith("parentbased_always_on");
    expect(await callUnder("01")).toBe("relayed kept");
    const traceparent = await vaultTraceparent();
    await tracing!.flush();
    const spans = exporter.getFinishedSpans();
    const named = (name: string) => spans.find((s) => s.name === name)!;
    const chain = [`${relayTopic} request`, `${relayTopic} serve`, `${vaultTopic} request`, `${vaultTopic} serve`].map(named);
    expect(chain.every((s) => s !== undefined && s.spanContext().traceId === TRACE_ID)).toBe(true);
    expect(chain[0]!.parentSpanContext?.spanId).toBe(PARENT_ID);
    for (let i = 1; i < chain.length; i++) expect(chain[i]!.parentSpanContext?.spanId).toBe(chain[i - 1]!.spanContext().spanId);
    expect(traceparent).toBe(`00-${TRACE_ID}-${chain[2]!.spanContext().spanId}-01`);
  });
});

describe("new traces with parentbased_traceidratio", () => {
  /** Makes `calls` new traces (a vault call with no parent each) and sorts them by the flags they went out with. */
  async function newTraces(calls: number) {
    for (let i = 0; i < calls; i++) expect(await toVault.call("alice", {}, {})).toBe("kept");
    await expect.poll(() => vaultRequests.length).toBe(calls);
    await tracing!.flush();
    const spans = exporter.getFinishedSpans();
    const sent = vaultRequests.map((p) => /^00-([0-9a-f]{32})-([0-9a-f]{16})-(0[01])$/.exec(p.traceparent ?? "")!);
    expect(sent.every((match) => match !== null)).toBe(true);
    return {
      spans,
      sampled: sent.filter((m) => m[3] === "01").map(([, traceId, spanId]) => ({ traceId: traceId!, spanId: spanId! })),
      unsampled: sent.filter((m) => m[3] === "00").map(([, traceId]) => traceId!),
    };
  }

  it("samples by the SDK's own ratio rule on the trace id, and the sampled ones are whole traces", async () => {
    traceWith("parentbased_traceidratio", 0.5);
    const { spans, sampled, unsampled } = await newTraces(200);
    expect(sampled.length).toBeGreaterThan(60);
    expect(unsampled.length).toBeGreaterThan(60);
    // Each decision is the one the SDK's TraceIdRatioBasedSampler makes for that trace id.
    const rule = new TraceIdRatioBasedSampler(0.5);
    const ruled = (traceId: string) => rule.shouldSample(ROOT_CONTEXT, traceId).decision === SamplingDecision.RECORD_AND_SAMPLED;
    expect(sampled.every(({ traceId }) => ruled(traceId))).toBe(true);
    expect(unsampled.some(ruled)).toBe(false);
    // A sampled trace has the request span the traceparent names and the vault's serve span under it;
    // an unsampled one has no span at all.
    for (const { traceId, spanId } of sampled) {
      const ofTrace = spans.filter((s) => s.spanContext().traceId === traceId);
      expect(ofTrace.map((s) => s.name).sort()).toEqual([`${vaultTopic} request`, `${vaultTopic} serve`]);
      expect(ofTrace.find((s) => s.name === `${vaultTopic} request`)!.spanContext().spanId).toBe(spanId);
    }
    expect(spans).toHaveLength(2 * sampled.length);
  });

  it("samples no new trace at ratio 0 and every one at 1 (and at 1 when the ratio is unset, as the SDK)", async () => {
    traceWith("parentbased_traceidratio", 0);
    const none = await newTraces(20);
    expect([none.sampled.length, none.unsampled.length, none.spans.length]).toEqual([0, 20, 0]);
    await tracing!.shutdown();
    traceWith("parentbased_traceidratio", 1);
    const all = await newTraces(20);
    expect([all.sampled.length, all.spans.length]).toEqual([20, 40]);
    await tracing!.shutdown();
    traceWith("parentbased_traceidratio");
    expect((await newTraces(5)).sampled).toHaveLength(5);
  });

  it("still follows a caller's decision: its sampled trace is recorded, its unsampled one is not", async () => {
    traceWith("parentbased_traceidratio", 0);
    expect(await callUnder("01")).toBe("relayed kept");
    await vaultTraceparent();
    await tracing!.flush();
    expect(exporter.getFinishedSpans().map((s) => s.spanContext().traceId)).toEqual(Array(4).fill(TRACE_ID));
  });
});
