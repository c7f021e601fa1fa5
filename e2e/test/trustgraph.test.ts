import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolServiceError } from "@toolmesh/base";
import { PulsarClient } from "@toolmesh/pulsar";
import { brokerServiceUrl, trustGraphToolCalls, useBroker, requestTopic, responseTopic } from "@toolmesh/test-support";
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
    const { results } = await trustGraphToolCalls(
      pulsarHost,
      { requestTopic: requestTopic("joke"), responseTopic: responseTopic("joke") },
      [
        { config: { style: "dad-joke" }, arguments: { topic: "cats" } },
        { config: { style: "pun" }, arguments: { topic: "cats" } },
        { config: { style: "nope" }, arguments: { topic: "cats" } },
        { arguments: {} },
      ],
    );
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
