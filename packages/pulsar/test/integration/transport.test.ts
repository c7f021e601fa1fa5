import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientOptions, type TransportKind, uniqueTopic, useBroker, waitFor } from "@toolmesh/test-support";
import { PulsarClient, type IncomingMessage } from "../../src/index.js";

// The transport contract: the same tests for every transport.
const TRANSPORTS: TransportKind[] = ["binary", "websocket"];

describe.each(TRANSPORTS)("producing and consuming on the real broker (%s transport)", (kind) => {
  let client: PulsarClient;

  beforeAll(async () => {
    client = new PulsarClient(clientOptions(await useBroker(), kind));
  });
  afterAll(() => client?.close());

  async function collect(topic: string, subscription: string) {
    const received: IncomingMessage[] = [];
    const sub = await client.subscribe({ topic, subscription, type: "Exclusive" }, async (m) => {
      received.push(m);
    });
    return { received, sub };
  }

  describe("delivery", () => {
    it.each(["non-persistent", "persistent"])("delivers payload bytes and properties on a %s topic", async (persistence) => {
      const topic = uniqueTopic("roundtrip", { persistence, namespace: "flow" });
      const { received, sub } = await collect(topic, "reader");
      const payload = Buffer.from(JSON.stringify({ text: "héllo ✓ 🐱", n: 42 }), "utf8");
      const messageId = await client.send(topic, payload, { id: "abc-123", kind: "test" });
      expect(messageId).not.toBe("");
      await waitFor(() => received.length === 1, { description: "the message" });
      expect(received[0]!.payload.equals(payload)).toBe(true);
      expect(received[0]!.properties).toEqual({ id: "abc-123", kind: "test" });
      expect(received[0]!.topic).toBe(topic);
      await sub.close();
    });

    it("keeps order on one producer and reuses it per topic", async () => {
      const topic = uniqueTopic("order", { namespace: "flow" });
      const { received, sub } = await collect(topic, "reader");
      const producer = await client.producer(topic);
      expect(await client.producer(topic)).toBe(producer);
      await Promise.all(Array.from({ length: 50 }, (_, i) => client.sendJson(topic, { i })));
      await waitFor(() => received.length === 50, { description: "50 messages" });
      expect(received.map((m) => JSON.parse(m.payload.toString()).i)).toEqual(Array.from({ length: 50 }, (_, i) => i));
      await sub.close();
    });

    it("redelivers a message whose handler failed (nack), then acks it", async () => {
      const topic = uniqueTopic("nack", { persistence: "persistent", namespace: "flow" });
      const attempts: string[] = [];
      const sub = await client.subscribe(
        { topic, subscription: "worker", type: "Shared", negativeAckRedeliveryDelayMs: 200 },
        async (m) => {
          attempts.push(m.messageId);
          if (attempts.length === 1) throw new Error("first attempt fails");
        },
      );
      const sentId = await client.sendJson(topic, { job: 1 });
      await waitFor(() => attempts.length >= 2, { timeoutMs: 20_000, description: "redelivery" });
      await new Promise((r) => setTimeout(r, 1_000)); // acked on the second try: no third delivery
      expect(attempts).toHaveLength(2);
      expect(attempts[0]).toBe(attempts[1]);
      expect(sentId).not.toBe("");
      await sub.close();
    });

    it("starts a new subscription on a persistent topic at the earliest message when asked", async () => {
      const topic = uniqueTopic("earliest", { persistence: "persistent", namespace: "flow" });
      await client.sendJson(topic, { before: true });
      const received: unknown[] = [];
      const sub = await client.subscribe(
        { topic, subscription: "late-reader", type: "Exclusive", initialPosition: "Earliest" },
        async (m) => {
          received.push(JSON.parse(m.payload.toString()));
        },
      );
      await waitFor(() => received.length === 1, { description: "the earlier message" });
      expect(received).toEqual([{ before: true }]);
      await sub.close();
    });

    it("refuses a topic name the broker cannot take, with the broker's reason", async () => {
      await expect(
        client.subscribe({ topic: "persistent://tg/request/x", subscription: "", type: "Shared" }, async () => {}),
      ).rejects.toThrow(/HTTP 400|refused/);
    });
  });
});
