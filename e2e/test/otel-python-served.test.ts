import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolServiceClient } from "@toolmesh/base";
import { Tracing } from "@toolmesh/base/tracing";
import { PulsarClient } from "@toolmesh/pulsar";
import {
  OtlpReceiver,
  type PythonRun,
  type TracedServiceResult,
  brokerServiceUrl,
  serviceTopics,
  tracedPythonService,
  useBroker,
} from "@toolmesh/test-support";

// The other direction of otel-python-traced.test.ts: toolmesh's ToolServiceClient, traced with one trace in
// two sampled (parentbased_traceidratio 0.5, where toolmesh decides a new trace before the SDK makes a
// span and sends a bare `traceparent` for the unsampled ones), calls a tool service written in Python
// that reads the trace context with OpenTelemetry's Python SDK (its default parent-based sampler) through
// Apache's client. The Python side must read every traceparent as a valid remote parent with the flag
// toolmesh decided, continue the sampled traces under toolmesh's client spans and record nothing for the
// others, so a trace is either whole on both sides or absent on both.
const receiver = new OtlpReceiver();
const topics = serviceTopics("py-traced");
let tracing: Tracing;
let pulsar: PulsarClient;
let service: PythonRun<TracedServiceResult>;

beforeAll(async () => {
  await receiver.start();
  tracing = Tracing.start({
    serviceName: "python-served-test",
    exporter: "otlp",
    protocol: "http/protobuf",
    url: `${receiver.url}/v1/traces`,
    sampler: "parentbased_traceidratio",
    samplerArg: 0.5,
  });
  const broker = await useBroker();
  pulsar = new PulsarClient({ ...broker });
  service = tracedPythonService(await brokerServiceUrl(broker.webServiceUrl), topics);
  await service.ready;
}, 120_000);

afterAll(async () => {
  await service?.stop().catch(() => undefined);
  await pulsar?.close();
  await tracing?.shutdown();
  await receiver.close();
});

describe("toolmesh's traced client (ratio sampling, decided before the SDK) -> a Python tool service traced by OpenTelemetry's Python SDK", () => {
  it("every traceparent reads as a valid parent; sampled traces continue in Python under toolmesh's spans, unsampled ones are recorded nowhere", async () => {
    const client = await ToolServiceClient.create(pulsar, { ...topics, timeoutMs: 15_000 });
    const topicsAsked = Array.from({ length: 40 }, (_, i) => `topic-${i}`);
    const answers = await Promise.all(topicsAsked.map((topic) => client.call("alice", {}, { topic })));
    expect(answers).toEqual(topicsAsked.map((topic) => `echo: ${JSON.stringify({ topic })}`));
    await tracing.flush();
    const seen = await service.stop();
    expect(seen).toMatchObject({ ok: true });
    expect(seen.requests).toHaveLength(topicsAsked.length);

    const sampled = seen.requests.filter((r) => r.remote.sampled);
    const unsampled = seen.requests.filter((r) => !r.remote.sampled);
    // At 0.5 both kinds turn up (all 40 alike: about one run in 2^39).
    expect(sampled.length).toBeGreaterThan(0);
    expect(unsampled.length).toBeGreaterThan(0);

    for (const request of seen.requests) {
      const { remote } = request;
      expect(remote).toMatchObject({ valid: true, remote: true });
      expect(request.properties.traceparent).toBe(`00-${remote.trace_id}-${remote.span_id}-${remote.sampled ? "01" : "00"}`);
      // The Python SDK's default sampler follows the flag toolmesh decided.
      expect(request.recording).toBe(remote.sampled);
      // toolmesh exported a trace exactly when it sampled it: the client span Python's span hangs under.
      const ours = receiver.trace(remote.trace_id);
      if (remote.sampled) expect(ours).toMatchObject([{ name: "py-traced request", spanId: remote.span_id, parentSpanId: "" }]);
      else expect(ours).toEqual([]);
    }
    // One trace per call: every call was a new root.
    expect(new Set(seen.requests.map((r) => r.remote.trace_id)).size).toBe(topicsAsked.length);

    const pythonSpans = seen.spans.map((s) => ({ trace: s.trace_id, parent: s.parent_span_id, name: s.name }));
    expect(pythonSpans.sort((a, b) => a.trace.localeCompare(b.trace))).toEqual(
      sampled
        .map((r) => ({ trace: r.remote.trace_id, parent: r.remote.span_id, name: "python serve" }))
        .sort((a, b) => a.trace.localeCompare(b.trace)),
    );
  }, 90_000);
});
