import { type Context, propagation, trace } from "@opentelemetry/api";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-node";
import { afterEach, describe, expect, it } from "vitest";
import { SpanKind, UnsampledSpan, extractTraceContext, injectTraceContext, setPlainTraceparent, traced } from "@toolmesh/pulsar";
import type { TracesSampler } from "../../src/index.js";
import { Tracing } from "../../src/tracing.js";
import type { TracePropagator } from "../../src/env.js";

// With W3C trace context as the only format (the default), an unsampled trace's `traceparent` is read and
// sent on as text instead of through the propagators. It must read and write exactly what they would.

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN_ID = "00f067aa0ba902b7";
const traceparent = (flags: string, traceId = TRACE_ID, spanId = SPAN_ID, version = "00") => `${version}-${traceId}-${spanId}-${flags}`;

let tracing: Tracing | undefined;
afterEach(async () => {
  await tracing?.shutdown();
  tracing = undefined;
});

function traceWith(propagators: TracePropagator[], sampler: TracesSampler = "parentbased_always_on"): void {
  const before = process.env.OTEL_TRACES_SAMPLER;
  process.env.OTEL_TRACES_SAMPLER = sampler;
  try {
    tracing = Tracing.start(
      { serviceName: "unit", exporter: "otlp", protocol: "http/protobuf", url: "http://unused", sampler, propagators },
      new InMemorySpanExporter(),
    );
  } finally {
    if (before === undefined) delete process.env.OTEL_TRACES_SAMPLER;
    else process.env.OTEL_TRACES_SAMPLER = before;
  }
}

/** What a context holds, comparably (a trace state parses itself lazily, so it is compared as text). */
function contents(context: Context) {
  const spanContext = trace.getSpanContext(context);
  return {
    span: spanContext && { ...spanContext, traceState: spanContext.traceState?.serialize() },
    baggage: propagation.getBaggage(context)?.getAllEntries(),
  };
}

/** What the registered propagators read from `carrier` and write back, the text fast path off: the reference. */
function throughPropagators(carrier: Record<string, string | string[]>) {
  setPlainTraceparent(false);
  try {
    const context = extractTraceContext(carrier);
    return { ...contents(context), written: injectTraceContext({}, context) };
  } finally {
    setPlainTraceparent(true);
  }
}

const carriers: Array<[string, Record<string, string | string[]>]> = [
  ["unsampled", { id: "r1", traceparent: traceparent("00") }],
  ["sampled", { traceparent: traceparent("01") }],
  ["unsampled, the random-trace-id flag set (02)", { traceparent: traceparent("02") }],
  ["sampled, the random-trace-id flag set (03)", { traceparent: traceparent("03") }],
  ["unsampled, an unknown flag set (04)", { traceparent: traceparent("04") }],
  ["upper-case ids", { traceparent: traceparent("00", TRACE_ID.toUpperCase()) }],
  ["a later version with more fields", { traceparent: `${traceparent("00", TRACE_ID, SPAN_ID, "01")}-extra` }],
  ["version ff (invalid)", { traceparent: traceparent("00", TRACE_ID, SPAN_ID, "ff") }],
  ["an all-zero trace id", { traceparent: traceparent("00", "0".repeat(32)) }],
  ["an all-zero span id", { traceparent: traceparent("00", TRACE_ID, "0".repeat(16)) }],
  ["too short", { traceparent: traceparent("00").slice(0, 54) }],
  ["with tracestate", { traceparent: traceparent("00"), tracestate: "vendor=a1" }],
  ["with TraceState in another case", { traceparent: traceparent("00"), TraceState: "vendor=a1" }],
  ["with baggage", { traceparent: traceparent("00"), baggage: "tenant=acme" }],
  ["with Baggage in another case", { traceparent: traceparent("00"), Baggage: "tenant=acme" }],
  ["none", { id: "r1" }],
];

describe("an unsampled traceparent with W3C trace context and baggage (the default)", () => {
  it("is kept as text (the fast path these tests compare with the propagators)", () => {
    traceWith(["tracecontext", "baggage"]);
    expect(trace.getSpan(extractTraceContext({ traceparent: traceparent("00") }))).toBeInstanceOf(UnsampledSpan);
    // W3C level 2's random-trace-id flag alone (OpenTelemetry's Python SDK sets it): unsampled too.
    expect(trace.getSpan(extractTraceContext({ traceparent: traceparent("02") }))).toBeInstanceOf(UnsampledSpan);
    expect(trace.getSpan(extractTraceContext({ traceparent: traceparent("03") }))).not.toBeInstanceOf(UnsampledSpan);
    expect(trace.getSpan(extractTraceContext({ traceparent: traceparent("00"), tracestate: "v=1" }))).not.toBeInstanceOf(UnsampledSpan);
  });

  it.each(carriers)("is read and sent on as the propagators would: %s", (_name, carrier) => {
    traceWith(["tracecontext", "baggage"]);
    const expected = throughPropagators(carrier);
    const context = extractTraceContext(carrier);
    expect(contents(context)).toEqual({ span: expected.span, baggage: expected.baggage });
    expect(injectTraceContext({}, context)).toEqual(expected.written);
  });

  it("passes through a tool service unchanged, and a new unsampled trace writes one that reads back", async () => {
    traceWith(["tracecontext", "baggage"], "parentbased_always_off");
    const sent = await traced("x request", { kind: SpanKind.CLIENT }, async (scope) =>
      injectTraceContext<Record<string, string>>({}, scope.context),
    );
    expect(Object.keys(sent)).toEqual(["traceparent"]);
    expect(sent.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    expect(trace.getSpan(extractTraceContext(sent))).toBeInstanceOf(UnsampledSpan);
    expect(throughPropagators(sent).written).toEqual(sent);
    // The server side: no span is made under an unsampled parent, so the context goes on as it came.
    const onward = await traced("x serve", { kind: SpanKind.SERVER, parent: extractTraceContext(sent) }, async (scope) =>
      injectTraceContext({}, scope.context),
    );
    expect(onward).toEqual(sent);
  });

  it("is the same with W3C trace context alone", () => {
    traceWith(["tracecontext"]);
    for (const [, carrier] of carriers) {
      expect(injectTraceContext({}, extractTraceContext(carrier))).toEqual(throughPropagators(carrier).written);
    }
  });
});

describe("with another format beside W3C", () => {
  it("every call goes through the propagators: an unsampled trace is sent as B3 too", async () => {
    traceWith(["tracecontext", "b3"], "parentbased_always_off");
    const sent = await traced("x request", { kind: SpanKind.CLIENT }, async (scope) =>
      injectTraceContext<Record<string, string>>({}, scope.context),
    );
    const traceId = /^00-([0-9a-f]{32})-/.exec(sent.traceparent ?? "")?.[1];
    expect(traceId).toBeDefined();
    expect(sent.b3).toMatch(new RegExp(`^${traceId}-[0-9a-f]{16}-0$`));
    const received = extractTraceContext({ traceparent: traceparent("00") });
    expect(trace.getSpan(received)).not.toBeInstanceOf(UnsampledSpan);
    expect(injectTraceContext({}, received)).toEqual({ traceparent: traceparent("00"), b3: `${TRACE_ID}-${SPAN_ID}-0` });
  });
});
