import { z } from "zod";
import { describe, expect, it } from "vitest";
import { Backoff, decodeJson, encodeJson } from "../../src/index.js";
import { consumerUrl, producerUrl } from "../../src/ws/urls.js";

describe("WebSocket URLs", () => {
  it("maps topics onto the v2 producer and consumer paths", () => {
    expect(producerUrl("ws://h:8080", "non-persistent://tg/request/joke")).toBe(
      "ws://h:8080/ws/v2/producer/non-persistent/tg/request/joke?batchingEnabled=false",
    );
    expect(
      consumerUrl("ws://h:8080", {
        topic: "persistent://tg/flow/x",
        subscription: "svc-request",
        type: "Shared",
        receiverQueueSize: 5000,
      }),
    ).toBe(
      "ws://h:8080/ws/v2/consumer/persistent/tg/flow/x/svc-request?subscriptionType=Shared&receiverQueueSize=1000&negativeAckRedeliveryDelay=1000",
    );
  });
});

describe("decodeJson", () => {
  const schema = z.object({ n: z.number() });

  it("decodes a valid payload", () => {
    expect(decodeJson(schema, encodeJson({ n: 1, extra: true }))).toEqual({ ok: true, value: { n: 1 } });
  });

  it("names the problem for bad JSON and for a schema mismatch", () => {
    const notJson = decodeJson(schema, Buffer.from("{n: 1"));
    expect(notJson.ok).toBe(false);
    expect(!notJson.ok && notJson.reason).toMatch(/^payload is not valid JSON/);
    const wrong = decodeJson(schema, encodeJson({ n: "one" }));
    expect(!wrong.ok && wrong.reason).toMatch(/^invalid message: n: /);
  });
});

describe("Backoff", () => {
  it("grows up to its ceiling and starts over after reset", () => {
    const backoff = new Backoff({ initialMs: 100, maxMs: 1_000 });
    const delays = Array.from({ length: 8 }, () => backoff.next());
    expect(delays[0]).toBeGreaterThanOrEqual(50);
    expect(delays[0]).toBeLessThanOrEqual(100);
    expect(Math.max(...delays)).toBeLessThanOrEqual(1_000);
    expect(delays[7]).toBeGreaterThanOrEqual(500);
    backoff.reset();
    expect(backoff.next()).toBeLessThanOrEqual(100);
  });
});
