import { ROOT_CONTEXT, TraceFlags, propagation, trace } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { extractTraceContext, injectTraceContext } from "@toolmesh/pulsar";
import { EmbeddedEnv, parseEnv, tracingSettings } from "../../src/index.js";
import { propagatorFor } from "../../src/tracing.js";

const env = (vars: Record<string, string>) => parseEnv(EmbeddedEnv, vars);

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN_ID = "00f067aa0ba902b7";
/** A context holding a sampled remote span, as a caller's would. */
const callerContext = trace.setSpanContext(ROOT_CONTEXT, {
  traceId: TRACE_ID,
  spanId: SPAN_ID,
  traceFlags: TraceFlags.SAMPLED,
  isRemote: true,
});

/** Makes these formats the process's propagator (the API refuses a second registration without a disable). */
function use(names: Parameters<typeof propagatorFor>[0]): void {
  propagation.disable();
  propagation.setGlobalPropagator(propagatorFor(names));
}

afterEach(() => propagation.disable());

describe("OTEL_PROPAGATORS", () => {
  it("defaults to W3C trace context and baggage, and takes OpenTelemetry's names in any case and spacing", () => {
    expect(env({}).OTEL_PROPAGATORS).toEqual(["tracecontext", "baggage"]);
    expect(env({ OTEL_PROPAGATORS: " B3Multi , tracecontext,b3multi" }).OTEL_PROPAGATORS).toEqual(["b3multi", "tracecontext"]);
    expect(tracingSettings(env({ OTEL_TRACES_EXPORTER: "otlp", OTEL_PROPAGATORS: "b3" }), "x")).toMatchObject({ propagators: ["b3"] });
  });

  it("refuses a format it does not ship, and none beside another", () => {
    expect(() => env({ OTEL_PROPAGATORS: "tracecontext,xray" })).toThrow(
      /OTEL_PROPAGATORS="tracecontext,xray": xray is not one of tracecontext, baggage, b3, b3multi, none/,
    );
    expect(() => env({ OTEL_PROPAGATORS: "none,b3" })).toThrow(/OTEL_PROPAGATORS="none,b3": none sends no trace context/);
    expect(() => env({ OTEL_PROPAGATORS: " , " })).toThrow(/OTEL_PROPAGATORS=" , ": name at least one of/);
  });
});

describe("the propagators OTEL_PROPAGATORS names", () => {
  it("b3multi writes Zipkin's x-b3-* properties and no traceparent", () => {
    use(["b3multi"]);
    expect(injectTraceContext({}, callerContext)).toEqual({ "x-b3-traceid": TRACE_ID, "x-b3-spanid": SPAN_ID, "x-b3-sampled": "1" });
  });

  it("b3 writes the single b3 property; tracecontext,b3 writes both", () => {
    use(["b3"]);
    expect(injectTraceContext({}, callerContext)).toEqual({ b3: `${TRACE_ID}-${SPAN_ID}-1` });
    use(["tracecontext", "b3"]);
    expect(injectTraceContext({}, callerContext)).toEqual({ traceparent: `00-${TRACE_ID}-${SPAN_ID}-01`, b3: `${TRACE_ID}-${SPAN_ID}-1` });
  });

  it("none writes nothing and reads nothing", () => {
    use(["none"]);
    expect(injectTraceContext({}, callerContext)).toEqual({});
    expect(trace.getSpanContext(extractTraceContext({ traceparent: `00-${TRACE_ID}-${SPAN_ID}-01` }))).toBeUndefined();
  });

  it("reads message properties whatever the case their writer gave the keys (X-B3-TraceId as x-b3-traceid)", () => {
    use(["b3multi"]);
    const extracted = extractTraceContext({ id: "r1", "X-B3-TraceId": TRACE_ID, "X-B3-SpanId": SPAN_ID, "X-B3-Sampled": "1" });
    expect(trace.getSpanContext(extracted)).toMatchObject({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: TraceFlags.SAMPLED });
    use(["tracecontext"]);
    expect(trace.getSpanContext(extractTraceContext({ TraceParent: `00-${TRACE_ID}-${SPAN_ID}-01` }))).toMatchObject({
      traceId: TRACE_ID,
    });
  });
});
