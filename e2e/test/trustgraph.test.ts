import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmbeddedEnv, DynamicToolService, ServiceRuntime, ToolServiceError, parseEnv, type ToolResult } from "@toolmesh/base";
import { PulsarClient } from "@toolmesh/pulsar";
import { brokerEnv, brokerServiceUrl, trustGraphToolCalls, serviceTopics, useBroker } from "@toolmesh/test-support";
import { withTrustGraphToolService } from "./fixtures/trustgraph-service.js";
import { System } from "./system.js";

// TrustGraph 2.11.1's own Python classes (trustgraph-base, over the broker's binary protocol) and toolmesh
// on one broker, both ways: TrustGraph's ToolServiceClient calls toolmesh's joke-service (a process), and
// toolmesh's ToolServiceClient calls a TrustGraph DynamicToolService. toolmesh uses its current transport.
const system = new System();
let pulsarHost: string;
let pulsar: PulsarClient;

beforeAll(async () => {
  await system.start([["joke-service", { JOKE_ANNOUNCE: "false" }]]);
  // Every URL the test broker has: the client takes the transport the product selects from them.
  const broker = await useBroker();
  pulsarHost = await brokerServiceUrl(broker.webServiceUrl);
  pulsar = new PulsarClient({ ...broker });
}, 120_000);

afterAll(async () => {
  await pulsar?.close();
  await system.stop();
});

describe("TrustGraph's ToolServiceClient -> toolmesh's joke-service", () => {
  it("gets jokes, and the joke-service's errors as TrustGraph errors", async () => {
    const { results } = await trustGraphToolCalls(pulsarHost, serviceTopics("joke"), [
      { config: { style: "dad-joke" }, arguments: { topic: "cats" } },
      { config: { style: "pun" }, arguments: { topic: "cats" } },
      { config: { style: "nope" }, arguments: { topic: "cats" } },
      { arguments: {} },
    ]);
    expect(results).toHaveLength(4);
    // TrustGraph sends no `user`, config and arguments as JSON strings ("{}" when empty).
    expect(results[0]).toEqual({ response: "Why don't cats play poker in the jungle? Too many cheetahs." });
    expect(results[1]).toEqual({ response: "Here's a pun: my cat is a great DJ, he always brings the mewsic." });
    expect(results[2]!.error).toMatch(/^RuntimeError: config 'style': unknown style 'nope'/);
    expect(results[3]!.error).toMatch(/^RuntimeError: argument 'topic' is required/);
  }, 60_000);
});

describe("toolmesh's ToolServiceClient -> TrustGraph's DynamicToolService", () => {
  it("calls it, in parallel, and turns its error replies into ToolServiceError", async () => {
    await withTrustGraphToolService(pulsar, pulsarHost, "tg-interop", async (client) => {
      expect(await client.call("alice", { style: "dad" }, { topic: "cats" })).toBe("dad: cats (trustgraph)");
      const topics = Array.from({ length: 20 }, (_, i) => `topic-${i}`);
      const answers = await Promise.all(topics.map((t) => client.call("alice", {}, { topic: t })));
      expect(answers).toEqual(topics.map((t) => `plain: ${t} (trustgraph)`));
      const failure = await client.call("alice", {}, {}).catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(ToolServiceError);
      expect(failure).toMatchObject({ type: "tool-service-error", message: "argument 'topic' is required" });
    });
  }, 90_000);
});

/** A tool whose calls outlast any shutdown timeout: the first call stops its own service instance. */
class StopsMidCall extends DynamicToolService {
  readonly id = "stops-mid-call";
  readonly topic = `stops-mid-call-${randomUUID().slice(0, 8)}`;
  runtime: ServiceRuntime | undefined;
  stopped: Promise<void> | undefined;

  invoke(): Promise<ToolResult> {
    this.stopped ??= this.runtime!.stop();
    return new Promise(() => undefined);
  }
}

describe("TrustGraph's ToolServiceClient -> a toolmesh tool service stopped with its call in hand", () => {
  // TrustGraph's client waits 10 s for a reply (trustgraph_peer.py); a call left unanswered would end TimeoutError.
  it("is answered 'unavailable ... retry' at the wind-down, before TrustGraph's own 10 s timeout", async () => {
    // SHUTDOWN_TIMEOUT_MS 3 s: serve() answers what it holds at 2.4 s (a fifth before), then the process may go.
    const broker = await useBroker();
    const env = parseEnv(EmbeddedEnv, {
      ...brokerEnv(broker),
      SHUTDOWN_TIMEOUT_MS: "3000",
      LOG_LEVEL: "silent",
    });
    const service = new StopsMidCall();
    service.runtime = new ServiceRuntime({ name: "stops-mid-call", env });
    await service.start(service.runtime, { announce: false });
    const topics = serviceTopics(service.topic);
    const { results } = await trustGraphToolCalls(pulsarHost, topics, [{ arguments: { topic: "cats" } }]);
    await service.stopped;
    expect(results).toEqual([
      {
        error: `RuntimeError: ${topics.requestTopic}: the service instance is stopping and cut this request short before its shutdown timeout (SHUTDOWN_TIMEOUT_MS); retry`,
      },
    ]);
  }, 60_000);
});
