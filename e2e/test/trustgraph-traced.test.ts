import { randomBytes } from "node:crypto";
import { ROOT_CONTEXT, TraceFlags, createTraceState, trace } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolServiceError, traced } from "@toolmesh/base";
import { Tracing } from "@toolmesh/base/tracing";
import { PulsarClient } from "@toolmesh/pulsar";
import { OtlpReceiver, brokerServiceUrl, trustGraphToolCalls, useBroker, waitFor, serviceTopics } from "@toolmesh/test-support";
import { withTrustGraphToolService } from "./fixtures/trustgraph-service.js";
import { System } from "./system.js";

// TrustGraph 2.11.1's own Python classes and toolmesh with tracing ON on both toolmesh sides: the
// joke-service process (OTLP protobuf) and this test's client (OTLP JSON). toolmesh's requests then carry
// `traceparent` and `tracestate` properties, which TrustGraph must ignore; TrustGraph's carry none, and
// toolmesh must serve them as before (each starting a trace of its own).
const system = new System();
const receiver = new OtlpReceiver();
let tracing: Tracing;
let pulsarHost: string;
let pulsar: PulsarClient;

beforeAll(async () => {
  await receiver.start();
  tracing = Tracing.start({
    serviceName: "interop-test",
    exporter: "otlp",
    protocol: "http/json",
    url: `${receiver.url}/v1/traces`,
    sampler: "parentbased_always_on",
  });
  await system.start([
    ["joke-service", { JOKE_ANNOUNCE: "false", OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "100" }],
  ]);
  const broker = await useBroker();
  pulsarHost = await brokerServiceUrl(broker.webServiceUrl);
  pulsar = new PulsarClient({ ...broker });
}, 120_000);

afterAll(async () => {
  await pulsar?.close();
  await system.stop();
  await tracing?.shutdown();
  await receiver.close();
});

describe("TrustGraph interop with tracing on", () => {
  it("TrustGraph's ToolServiceClient -> a traced joke-service: same answers, each request traced from the joke-service", async () => {
    const { results } = await trustGraphToolCalls(pulsarHost, serviceTopics("joke"), [
      { config: { style: "pun" }, arguments: { topic: "cats" } },
      { config: { style: "nope" }, arguments: { topic: "cats" } },
    ]);
    expect(results[0]).toEqual({ response: "Here's a pun: my cat is a great DJ, he always brings the mewsic." });
    expect(results[1]!.error).toMatch(/^RuntimeError: config 'style': unknown style 'nope'/);
    // No traceparent from TrustGraph: each request is the root of its own trace.
    const served = await waitFor(
      () => {
        const spans = receiver.spans.filter((s) => s.service === "joke-service" && s.name === "joke serve");
        return spans.length >= 2 ? spans : undefined;
      },
      { description: "the joke-service's spans" },
    );
    expect(served.map((s) => s.parentSpanId)).toEqual(["", ""]);
    expect(served.map((s) => s.attributes["toolmesh.outcome"]).sort()).toEqual(["error", "ok"]);
  }, 60_000);

  it("toolmesh's traced ToolServiceClient -> TrustGraph's DynamicToolService: traceparent and tracestate sent, ignored, answers unchanged", async () => {
    await withTrustGraphToolService(pulsar, pulsarHost, "tg-traced", async (client, topic) => {
      const seen: Array<Record<string, string>> = [];
      // A second subscription on the request topic sees what TrustGraph's service receives.
      const watcher = await pulsar.subscribe(
        { topic: `non-persistent://tg/request/${topic}`, subscription: `watch-${topic}`, type: "Shared" },
        async (m) => {
          seen.push(m.properties);
        },
      );
      try {
        // A caller whose context carries vendor trace state, as it would behind an instrumented front end.
        const traceId = randomBytes(16).toString("hex");
        const caller = trace.setSpanContext(ROOT_CONTEXT, {
          traceId,
          spanId: randomBytes(8).toString("hex"),
          traceFlags: TraceFlags.SAMPLED,
          isRemote: true,
          traceState: createTraceState("vendor=abc"),
        });
        await traced("interop calls", { parent: caller }, async (scope) => {
          const within = { trace: scope.context };
          expect(await client.call("alice", { style: "dad" }, { topic: "cats" }, within)).toBe("dad: cats (trustgraph)");
          const topics = Array.from({ length: 10 }, (_, i) => `topic-${i}`);
          expect(await Promise.all(topics.map((t) => client.call("alice", {}, { topic: t }, within)))).toEqual(
            topics.map((t) => `plain: ${t} (trustgraph)`),
          );
          const failure = await client.call("alice", {}, {}, within).catch((err: unknown) => err);
          expect(failure).toBeInstanceOf(ToolServiceError);
          expect(failure).toMatchObject({ type: "tool-service-error", message: "argument 'topic' is required" });
        });
        await waitFor(() => seen.length === 12, { description: "the watcher's copies of the 12 requests" });
        for (const properties of seen) {
          expect(properties.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
          expect(properties.tracestate).toBe("vendor=abc");
        }
        await tracing.flush();
        const requests = await waitFor(
          () => {
            const spans = receiver.trace(traceId).filter((s) => s.name === `${topic} request`);
            return spans.length === 12 ? spans : undefined;
          },
          { description: "the client's 12 request spans" },
        );
        expect(requests.filter((s) => s.attributes["toolmesh.outcome"] === "error-reply").map((s) => s.attributes["error.type"])).toEqual([
          "tool-service-error",
        ]);
        expect([...receiver.contentTypes].sort()).toEqual(["application/json", "application/x-protobuf"]);
      } finally {
        await watcher.close();
      }
    });
  }, 90_000);
});
