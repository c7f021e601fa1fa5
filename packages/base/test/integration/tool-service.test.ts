import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pino from "pino";
import { ToolServiceResponse } from "@toolmesh/schema";
import { RequestClient } from "@toolmesh/pulsar";
import { useBroker, waitFor, brokerEnv, requestTopic, serviceTopics } from "@toolmesh/test-support";
import {
  EmbeddedEnv,
  DynamicToolService,
  ServiceRuntime,
  ToolServiceClient,
  ToolServiceError,
  parseEnv,
  type ToolResult,
} from "../../src/index.js";

const topic = `test-tools-${randomUUID().slice(0, 8)}`;
let running = 0;
let peak = 0;

class TestToolService extends DynamicToolService {
  readonly id = "test-tool-service";
  readonly topic = topic;
  override concurrency = 2;

  invoke(user: string, config: Record<string, unknown>, args: Record<string, unknown>): Promise<ToolResult> | AsyncIterable<ToolResult> {
    switch (args.mode) {
      case "json":
        return Promise.resolve({ user, config, args });
      case "stream":
        return (async function* () {
          yield "one ";
          yield "two ";
          yield { three: 3 };
        })();
      case "empty-stream":
        return (async function* () {})();
      case "throw":
        return Promise.reject(new Error("the tool broke"));
      case "slow":
        return (async () => {
          running += 1;
          peak = Math.max(peak, running);
          await new Promise((r) => setTimeout(r, Number(args.ms ?? 200)));
          running -= 1;
          return "slow done";
        })();
      default:
        return Promise.resolve(`hello ${user}, style ${String(config.style)}`);
    }
  }
}

let runtime: ServiceRuntime;
let client: ToolServiceClient;
let raw: RequestClient<typeof ToolServiceResponse>;

beforeAll(async () => {
  const broker = await useBroker();
  const env = parseEnv(EmbeddedEnv, { ...brokerEnv(broker) });
  runtime = new ServiceRuntime({ name: "test-tool-service", env, logger: pino({ level: "silent" }) });
  await new TestToolService().start(runtime);
  client = await ToolServiceClient.create(runtime.pulsar, serviceTopics(topic));
  raw = await RequestClient.create(runtime.pulsar, {
    ...serviceTopics(topic),
    responseSchema: ToolServiceResponse,
  });
});

afterAll(async () => {
  await client?.close();
  await raw?.close();
  await runtime?.stop();
});

describe("DynamicToolService and ToolServiceClient on the real broker", () => {
  it("returns a string result as the response", async () => {
    expect(await client.call("alice", { style: "pun" }, {})).toBe("hello alice, style pun");
  });

  it("stringifies a JSON result", async () => {
    const text = await client.call("bob", { a: 1 }, { mode: "json" });
    expect(JSON.parse(text)).toEqual({ user: "bob", config: { a: 1 }, args: { mode: "json" } });
  });

  it("sends a 3-chunk stream as 3 replies, the last with end_of_stream", async () => {
    const replies: Array<{ response: string; end_of_stream: boolean }> = [];
    await raw.request(
      { user: "u", config: "{}", arguments: JSON.stringify({ mode: "stream" }) },
      { isLast: (r) => r.end_of_stream, onReply: (r) => replies.push({ response: r.response, end_of_stream: r.end_of_stream }) },
    );
    expect(replies).toEqual([
      { response: "one ", end_of_stream: false },
      { response: "two ", end_of_stream: false },
      { response: '{"three":3}', end_of_stream: true },
    ]);
    const chunks: string[] = [];
    for await (const chunk of client.stream("u", {}, { mode: "stream" })) chunks.push(chunk);
    expect(chunks).toEqual(["one ", "two ", '{"three":3}']);
    expect(await client.call("u", {}, { mode: "stream" })).toBe('one two {"three":3}');
  });

  it("ends an empty stream with one empty final reply", async () => {
    expect(await client.call("u", {}, { mode: "empty-stream" })).toBe("");
  });

  it("turns a thrown error into a tool-service-error", async () => {
    const error = await client.call("u", {}, { mode: "throw" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolServiceError);
    expect(error).toMatchObject({ type: "tool-service-error", message: "the tool broke" });
  });

  it("handles at most `concurrency` requests at once per instance", async () => {
    peak = 0;
    const results = await Promise.all(Array.from({ length: 6 }, () => client.call("u", {}, { mode: "slow", ms: 150 })));
    expect(results).toEqual(Array(6).fill("slow done"));
    expect(peak).toBe(2);
  });

  it("serves /healthz, /readyz and /metrics with request counts", async () => {
    expect((await runtime.http.inject({ method: "GET", url: "/healthz" })).json()).toEqual({ status: "ok" });
    const ready = await runtime.http.inject({ method: "GET", url: "/readyz" });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: "ready", checks: { accepting: true, broker: true } });
    const metrics = (await runtime.http.inject({ method: "GET", url: "/metrics" })).body;
    expect(metrics).toMatch(
      new RegExp(`toolmesh_requests_total\\{topic="${requestTopic(topic)}",outcome="ok",service="test-tool-service"\\} \\d+`),
    );
    expect(metrics).toMatch(/toolmesh_requests_total\{[^}]*outcome="error"[^}]*\} 1/);
    expect(metrics).toMatch(/toolmesh_request_duration_seconds_bucket/);
    expect(metrics).toMatch(/process_resident_memory_bytes/);
  });
});

describe("graceful shutdown", () => {
  it("finishes a request in hand before closing, and is not ready meanwhile", async () => {
    const broker = await useBroker();
    const env = parseEnv(EmbeddedEnv, { ...brokerEnv(broker) });
    const service = new ServiceRuntime({ name: "shutdown-test", env, logger: pino({ level: "silent" }) });
    const slowTopic = `slow-${randomUUID().slice(0, 8)}`;
    class Slow extends TestToolService {
      override readonly topic = slowTopic;
    }
    await new Slow().start(service);
    const caller = await ToolServiceClient.create(runtime.pulsar, {
      ...serviceTopics(slowTopic),
    });
    const inFlight = caller.call("u", {}, { mode: "slow", ms: 1_000 });
    await waitFor(() => running > 0, { description: "the request to start" });
    const stopping = service.stop();
    expect((await service.http.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(503);
    expect(await inFlight).toBe("slow done");
    await stopping;
    await caller.close();
  });
});
