import { randomUUID } from "node:crypto";
import { ROOT_CONTEXT, context } from "@opentelemetry/api";
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-node";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryBroker, MemoryTransport, PulsarClient } from "@toolmesh/pulsar";
import {
  EmbeddedEnv,
  DynamicToolService,
  ServiceRuntime,
  ToolServiceClient,
  ToolServiceError,
  parseEnv,
  traced,
  tracingSettings,
} from "../../src/index.js";
import { Tracing } from "../../src/tracing.js";
import { requestTopic, serviceTopics } from "@toolmesh/test-support";

const env = (vars: Record<string, string>) => parseEnv(EmbeddedEnv, vars);

describe("tracingSettings: off by default, on with the standard OTEL_* variables", () => {
  it("is off with no OTEL_* variable", () => {
    expect(tracingSettings(env({}), "agent")).toBeUndefined();
  });

  it("is on when an OTLP endpoint is given, exporting protobuf to its /v1/traces", () => {
    expect(tracingSettings(env({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" }), "agent")).toEqual({
      serviceName: "agent",
      exporter: "otlp",
      protocol: "http/protobuf",
      url: "http://collector:4318/v1/traces",
      sampler: "parentbased_always_on",
      propagators: ["tracecontext", "baggage"],
    });
  });

  it("takes the traces endpoint as given, the traces protocol, and OTEL_SERVICE_NAME", () => {
    const settings = tracingSettings(
      env({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c:4318/custom",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "agent-eu",
      }),
      "agent",
    );
    expect(settings).toMatchObject({ url: "http://c:4318/custom", protocol: "http/json", serviceName: "agent-eu" });
  });

  it("is on with OTEL_TRACES_EXPORTER=otlp alone (the OTLP default endpoint), or console", () => {
    expect(tracingSettings(env({ OTEL_TRACES_EXPORTER: "otlp" }), "x")).toMatchObject({
      exporter: "otlp",
      url: "http://localhost:4318/v1/traces",
    });
    expect(tracingSettings(env({ OTEL_TRACES_EXPORTER: "console" }), "x")).toMatchObject({ exporter: "console" });
  });

  it("stays off with OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true, whatever else is set", () => {
    expect(tracingSettings(env({ OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }), "x")).toBeUndefined();
    expect(tracingSettings(env({ OTEL_SDK_DISABLED: "true", OTEL_TRACES_EXPORTER: "otlp" }), "x")).toBeUndefined();
  });

  it("refuses gRPC, an unknown exporter and a bad endpoint, naming the variable", () => {
    expect(() => env({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL="grpc": must be http\/protobuf or http\/json/,
    );
    expect(() => env({ OTEL_TRACES_EXPORTER: "jaeger" })).toThrow(/OTEL_TRACES_EXPORTER="jaeger"/);
    expect(() => env({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector" })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT="collector"/);
  });

  it("takes the sampler the SDK will use, and refuses one it does not know or a ratio outside 0..1", () => {
    expect(tracingSettings(env({ OTEL_TRACES_EXPORTER: "otlp" }), "x")).toMatchObject({ sampler: "parentbased_always_on" });
    expect(
      tracingSettings(
        env({ OTEL_TRACES_EXPORTER: "otlp", OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.1" }),
        "x",
      ),
    ).toMatchObject({ sampler: "parentbased_traceidratio" });
    expect(() => env({ OTEL_TRACES_SAMPLER: "parentbased_traceid_ratio" })).toThrow(
      /OTEL_TRACES_SAMPLER="parentbased_traceid_ratio": must be one of always_on, always_off, traceidratio/,
    );
    expect(() => env({ OTEL_TRACES_SAMPLER_ARG: "10" })).toThrow(/OTEL_TRACES_SAMPLER_ARG="10": must be between 0 and 1/);
  });
});

// Arguments and results a span must never carry: each distinctive enough to find anywhere in a span.
const SECRET_ARGUMENT = `argument-${randomUUID()}`;
const SECRET_RESULT = `result-${randomUUID()}`;

class Vault extends DynamicToolService {
  readonly id = "vault";
  readonly topic = `vault-${randomUUID().slice(0, 8)}`;
  async invoke(_user: string, _config: Record<string, unknown>, args: Record<string, unknown>) {
    // A tool's error text may quote its input: the span must not.
    if (args.fail) throw new Error(`refused ${String(args.secret)}`);
    return `${SECRET_RESULT} for ${String(args.secret)}`;
  }
}

const exporter = new InMemorySpanExporter();
const broker = new MemoryBroker();
const vault = new Vault();
let tracing: Tracing;
let runtime: ServiceRuntime;
let pulsar: PulsarClient;
let client: ToolServiceClient;
const requestProperties: Array<Record<string, string>> = [];

beforeAll(async () => {
  tracing = Tracing.start(
    { serviceName: "unit", exporter: "otlp", protocol: "http/protobuf", url: "http://unused", sampler: "parentbased_always_on" },
    exporter,
  );
  runtime = new ServiceRuntime({
    name: "vault",
    env: env({}),
    logger: pino({ level: "silent" }),
    transport: new MemoryTransport({ broker }),
  });
  await vault.start(runtime, { announce: false });
  pulsar = new PulsarClient({ webServiceUrl: "memory://", transport: new MemoryTransport({ broker }) });
  // A second subscription on the request topic sees every request as the broker carries it.
  await pulsar.subscribe({ topic: requestTopic(vault.topic), subscription: "watcher", type: "Shared" }, async (message) => {
    requestProperties.push(message.properties);
  });
  client = await ToolServiceClient.create(pulsar, {
    ...serviceTopics(vault.topic),
    timeoutMs: 2_000,
  });
});

afterAll(async () => {
  await client.close();
  await pulsar.close();
  await runtime.stop();
  // The unit tier shares one module cache per worker: shutdown() leaves no global tracer behind for the next file.
  await tracing.shutdown();
});

const hex = (n: number) => new RegExp(`^[0-9a-f]{${n}}$`);
const byName = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name);

describe("spans across the bus", () => {
  it("joins caller, tool-service request and the service's handling into one trace through `traceparent`", async () => {
    exporter.reset();
    requestProperties.length = 0;
    const answer = await traced("caller", {}, (scope) => client.call("alice", {}, { secret: SECRET_ARGUMENT }, { trace: scope.context }));
    expect(answer).toBe(`${SECRET_RESULT} for ${SECRET_ARGUMENT}`);
    await tracing.flush();

    const spans = exporter.getFinishedSpans();
    const [caller] = byName(spans, "caller");
    const [request] = byName(spans, `${vault.topic} request`);
    const [served] = byName(spans, `${vault.topic} serve`);
    expect(caller && request && served).toBeTruthy();
    const traceId = caller!.spanContext().traceId;
    expect(traceId).toMatch(hex(32));
    expect(request!.spanContext().traceId).toBe(traceId);
    expect(served!.spanContext().traceId).toBe(traceId);
    expect(request!.parentSpanContext?.spanId).toBe(caller!.spanContext().spanId);
    expect(served!.parentSpanContext?.spanId).toBe(request!.spanContext().spanId);

    // The request carried the client span's context as a W3C traceparent property.
    await expect.poll(() => requestProperties.length).toBe(1);
    expect(requestProperties[0]!.traceparent).toBe(`00-${traceId}-${request!.spanContext().spanId}-01`);

    expect(request!.attributes).toMatchObject({ "messaging.destination.name": requestTopic(vault.topic), "toolmesh.outcome": "ok" });
    expect(served!.attributes).toMatchObject({
      "messaging.destination.name": requestTopic(vault.topic),
      "toolmesh.tool_service.id": "vault",
      "toolmesh.outcome": "ok",
    });
    expect(served!.attributes["toolmesh.duration_ms"]).toBeTypeOf("number");
  });

  it("passes parents explicitly: no context manager is registered, so nothing hooks the process's promises", async () => {
    // An AsyncLocalStorage context manager (the SDK's default) would make the span active across the await.
    const seen = await traced("outer", {}, async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return context.active();
    });
    expect(seen).toBe(ROOT_CONTEXT);
    // Without a parent a call starts its own trace; given the caller's scope, it joins the caller's.
    exporter.reset();
    await traced("caller", {}, async (scope) => {
      await client.call("alice", {}, { secret: SECRET_ARGUMENT });
      await client.call("alice", {}, { secret: SECRET_ARGUMENT }, { trace: scope.context });
    });
    await tracing.flush();
    const spans = exporter.getFinishedSpans();
    const [caller] = byName(spans, "caller");
    const requests = byName(spans, `${vault.topic} request`);
    expect(requests.map((r) => r.parentSpanContext?.spanId ?? null).sort()).toEqual([caller!.spanContext().spanId, null].sort());
  });

  it("records an error reply's type on both sides", async () => {
    exporter.reset();
    const failure = await client.call("alice", {}, { secret: SECRET_ARGUMENT, fail: true }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(ToolServiceError);
    await tracing.flush();
    const [request] = byName(exporter.getFinishedSpans(), `${vault.topic} request`);
    const [served] = byName(exporter.getFinishedSpans(), `${vault.topic} serve`);
    expect(request!.attributes).toMatchObject({ "toolmesh.outcome": "error-reply", "error.type": "tool-service-error" });
    expect(served!.attributes).toMatchObject({ "toolmesh.outcome": "error", "error.type": "tool-service-error" });
    expect(served!.status.code).toBe(2); // SpanStatusCode.ERROR
  });

  it("never carries arguments, results or error texts, in any attribute, event, status or name", async () => {
    exporter.reset();
    await client.call("alice", {}, { secret: SECRET_ARGUMENT });
    await client.call("alice", {}, { secret: SECRET_ARGUMENT, fail: true }).catch(() => undefined);
    await tracing.flush();
    const spans = exporter.getFinishedSpans();
    expect(spans.length).toBeGreaterThanOrEqual(4);
    const everything = JSON.stringify(
      spans.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, status: s.status, links: s.links })),
    );
    expect(everything).toContain("vault"); // the dump is real: it holds what spans do carry
    expect(everything).not.toContain(SECRET_ARGUMENT);
    expect(everything).not.toContain(SECRET_RESULT);
  });
});

describe("the SDK's own troubles", () => {
  it("reach the service's log: an export to a collector that is not there is logged, the service goes on", async () => {
    const lines: Array<{ level: number; msg: string }> = [];
    const logger = pino({ level: "warn" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    // Port 9 (discard) on loopback: nothing listens there, so the export fails at once.
    const failing = Tracing.start(
      {
        serviceName: "unit",
        exporter: "otlp",
        protocol: "http/protobuf",
        url: "http://127.0.0.1:9/v1/traces",
        sampler: "parentbased_always_on",
      },
      undefined,
      logger,
    );
    try {
      await traced("lost", {}, async () => undefined);
      await failing.flush();
      await expect.poll(() => lines.filter((l) => l.msg.startsWith("opentelemetry: ")).length, { timeout: 5_000 }).toBeGreaterThan(0);
    } finally {
      await failing.shutdown();
    }
  });
});
