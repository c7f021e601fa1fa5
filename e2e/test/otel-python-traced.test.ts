import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  OtlpReceiver,
  type ReceivedSpan,
  brokerServiceUrl,
  serviceTopics,
  tracedPythonCalls,
  useBroker,
  waitFor,
} from "@toolmesh/test-support";
import { System } from "./system.js";

// A caller nobody here wrote: OpenTelemetry's Python SDK writes each request's W3C trace context and
// Apache's Python client sends it to a traced joke-service process (the default parent-based sampler).
// The joke-service must continue a sampled caller's trace, record nothing for an unsampled one, and serve
// a request whose traceparent is broken as the root of a new trace.
const system = new System();
const receiver = new OtlpReceiver();
let pulsarUrl: string;

beforeAll(async () => {
  await receiver.start();
  await system.start([
    ["joke-service", { JOKE_ANNOUNCE: "false", OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "100" }],
  ]);
  // A second joke-service reading and writing Zipkin's B3 headers instead (OTEL_PROPAGATORS).
  await system.add("joke-service-b3", "joke-service", {
    JOKE_TOPIC: "joke-b3",
    JOKE_ANNOUNCE: "false",
    OTEL_SERVICE_NAME: "joke-service-b3",
    OTEL_PROPAGATORS: "b3multi",
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_BSP_SCHEDULE_DELAY: "100",
  });
  pulsarUrl = await brokerServiceUrl((await useBroker()).webServiceUrl);
}, 120_000);

afterAll(async () => {
  await system.stop();
  await receiver.close();
});

const joke = serviceTopics("joke");
// Every trace a Python caller started, so a later test can tell an earlier one's late spans from its own.
const callerTraces = new Set<string>();
const served = (traceId: string): ReceivedSpan[] => receiver.trace(traceId).filter((s) => s.service === "joke-service");

describe("a traced Python caller (OpenTelemetry's Python SDK, Apache's client) -> a traced joke-service", () => {
  it("continues a sampled caller's trace and makes no span for an unsampled one; every call answered", async () => {
    const calls = await tracedPythonCalls(pulsarUrl, joke, [
      { sampled: false, arguments: { topic: "cats" } },
      { sampled: true, arguments: { topic: "dogs" } },
      { sampled: false, arguments: { topic: "owls" } },
      { sampled: true, arguments: { topic: "fish" } },
    ]);
    for (const call of calls) {
      callerTraces.add(call.trace_id);
      expect(call.reply.error ?? null).toBeNull();
      expect(call.reply.response).toMatch(/\S/);
    }
    const [unsampledA, sampledA, unsampledB, sampledB] = calls;
    // Python's SDK sets W3C level 2's "random trace id" flag (02) beside "sampled" (01): 03 or 02.
    expect(sampledA!.traceparent).toMatch(new RegExp(`^00-${sampledA!.trace_id}-${sampledA!.span_id}-0[13]$`));
    expect(unsampledA!.traceparent).toMatch(new RegExp(`^00-${unsampledA!.trace_id}-${unsampledA!.span_id}-0[02]$`));

    // The last call's span ends last: once it is in, the joke-service exported everything before it.
    const last = await waitFor(() => served(sampledB!.trace_id)[0], { description: "the joke-service's span of the last call" });
    const first = served(sampledA!.trace_id);
    expect(first).toHaveLength(1);
    for (const [span, call] of [
      [first[0]!, sampledA!],
      [last, sampledB!],
    ] as const) {
      expect(span).toMatchObject({ name: "joke serve", kind: 2, parentSpanId: call.span_id });
      expect(span.attributes["toolmesh.outcome"]).toBe("ok");
    }
    expect(served(unsampledA!.trace_id)).toEqual([]);
    expect(served(unsampledB!.trace_id)).toEqual([]);
  }, 60_000);

  it("serves a request whose traceparent is broken, as the root of a trace of its own", async () => {
    const broken = ["not-a-traceparent", `00-${"0".repeat(32)}-${"0".repeat(16)}-01`, `ff-${"a".repeat(32)}-${"b".repeat(16)}-01`, ""];
    const earlier = new Set(callerTraces);
    const calls = await tracedPythonCalls(
      pulsarUrl,
      joke,
      broken.map((traceparent) => ({ sampled: true, arguments: { topic: "bees" }, traceparent })),
    );
    for (const call of calls) expect(call.reply.response).toMatch(/\S/);
    const roots = await waitFor(
      () => {
        const spans = receiver.spans.filter((s) => s.service === "joke-service" && !earlier.has(s.traceId));
        return spans.length >= broken.length ? spans : undefined;
      },
      { description: "the joke-service's spans of the four calls" },
    );
    expect(roots.map((s) => s.parentSpanId)).toEqual(broken.map(() => ""));
    // A new trace each: none continues the caller's (the SDK's ids were replaced by the broken text).
    expect(new Set(roots.map((s) => s.traceId)).size).toBe(broken.length);
    const replaced = new Set(calls.map((c) => c.trace_id));
    expect(roots.filter((s) => replaced.has(s.traceId))).toEqual([]);
  }, 60_000);
});

describe("a Python caller propagating Zipkin's B3 headers (OTEL_PROPAGATORS=b3multi in OpenTelemetry's Python SDK)", () => {
  const jokeB3 = serviceTopics("joke-b3");
  const servedB3 = (traceId: string): ReceivedSpan[] => receiver.trace(traceId).filter((s) => s.service === "joke-service-b3");

  it("is continued by a joke-service set to OTEL_PROPAGATORS=b3multi: sampled calls joined, unsampled ones not recorded", async () => {
    const calls = await tracedPythonCalls(
      pulsarUrl,
      jokeB3,
      [
        { sampled: true, arguments: { topic: "cats" } },
        { sampled: false, arguments: { topic: "dogs" } },
        { sampled: true, arguments: { topic: "owls" } },
      ],
      "b3multi",
    );
    const [sampledA, unsampled, sampledB] = calls;
    for (const call of calls) {
      expect(call.reply.response).toMatch(/\S/);
      // B3 only: what the joke-service reads is Zipkin's, not W3C's.
      expect(call.traceparent).toBeNull();
      expect(call.properties).toMatchObject({ "x-b3-traceid": call.trace_id, "x-b3-spanid": call.span_id });
    }
    expect(sampledA!.properties["x-b3-sampled"]).toBe("1");
    expect(unsampled!.properties["x-b3-sampled"]).toBe("0");

    const last = await waitFor(() => servedB3(sampledB!.trace_id)[0], { description: "the B3 joke-service's span of the last call" });
    for (const [span, call] of [
      [servedB3(sampledA!.trace_id)[0], sampledA!],
      [last, sampledB!],
    ] as const) {
      expect(span).toMatchObject({ name: "joke-b3 serve", traceId: call.trace_id, parentSpanId: call.span_id });
    }
    expect(servedB3(unsampled!.trace_id)).toEqual([]);
  }, 60_000);

  it("starts a trace of its own at a joke-service left on W3C trace context (the default): the formats must match", async () => {
    const before = new Set(receiver.spans.map((s) => s.spanId));
    const [call] = await tracedPythonCalls(pulsarUrl, joke, [{ sampled: true, arguments: { topic: "bats" } }], "b3multi");
    expect(call!.reply.response).toMatch(/\S/);
    const root = await waitFor(() => receiver.spans.find((s) => s.service === "joke-service" && !before.has(s.spanId)), {
      description: "the W3C joke-service's span of the call",
    });
    expect(root).toMatchObject({ name: "joke serve", parentSpanId: "" });
    expect(root.traceId).not.toBe(call!.trace_id);
  }, 60_000);
});
