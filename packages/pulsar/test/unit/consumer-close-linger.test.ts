import pino from "pino";
import { describe, expect, it } from "vitest";
import { BinaryConsumer } from "../../src/binary/consumer.js";
import type { BrokerConnection, ConsumerListener } from "../../src/binary/connection.js";
import type { Frame } from "../../src/binary/frame-codec.js";
import type { HandleContext } from "../../src/binary/reconnecting-handle.js";
import type { IncomingMessage } from "../../src/transport.js";

// The broker may write a MESSAGE for a consumer just after answering its CLOSE_CONSUMER (its dispatcher
// picked the consumer on another thread just before the close removed it). On a non-persistent topic nobody
// else would ever get that message, so a closed consumer still hands such stragglers over for a moment
// (closeLingerMs, which request servers set).

/** A broker connection that answers every request at once and records what is written and registered. */
class FakeConnection {
  readonly closed = false;
  readonly writes: Buffer[] = [];
  readonly listeners = new Map<number, ConsumerListener>();
  newConsumerId = () => 7;
  addConsumer = (id: number, listener: ConsumerListener) => void this.listeners.set(id, listener);
  removeConsumer = (id: number) => void this.listeners.delete(id);
  request = () => Promise.resolve({});
  write = (data: Buffer) => void this.writes.push(data);
}

function message(entryId: number): Frame {
  return {
    command: { type: 9, message: { consumer_id: 7, message_id: { ledgerId: 1, entryId } } },
    metadata: { producer_name: "p", sequence_id: entryId, publish_time: 1_700_000_000_000, properties: [] },
    payload: Buffer.from(`request ${entryId}`),
    checksumValid: true,
  } as unknown as Frame;
}

async function subscribed(topic: string, closeLingerMs = 200) {
  const connection = new FakeConnection();
  const context = {
    pool: { get: async () => connection as unknown as BrokerConnection },
    lookup: { locate: async () => ({ logical: "pulsar://b:6650", physical: "pulsar://b:6650" }) },
    logger: pino({ level: "silent" }),
    operationTimeoutMs: 1_000,
  } as unknown as HandleContext;
  const received: IncomingMessage[] = [];
  const options = { topic, subscription: "s", type: "Shared" as const, closeLingerMs };
  const consumer = new BinaryConsumer(context, topic, options, { receiverQueueSize: 2, partition: -1, reportedTopic: topic }, (m) =>
    received.push(m),
  );
  await consumer.start();
  return { connection, consumer, received };
}

describe("a binary consumer closing", () => {
  it("on a non-persistent topic, hands over a message that comes after the broker confirmed the close, and sends nothing for it", async () => {
    const { connection, consumer, received } = await subscribed("non-persistent://t/request/q");
    const closing = consumer.close();
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The close was answered; the consumer is still registered, so the connection routes the straggler to it.
    const listener = connection.listeners.get(7);
    expect(listener).toBe(consumer);
    const writesBefore = connection.writes.length;
    listener!.onMessage(message(1));
    listener!.onMessage(message(2));
    expect(received.map((m) => m.payload.toString())).toEqual(["request 1", "request 2"]);
    // No FLOW for the permits those took, nor any ack: the broker has forgotten this consumer.
    consumer.ack(received[0]!.messageId);
    expect(connection.writes.length).toBe(writesBefore);
    await closing;
    expect(connection.listeners.has(7)).toBe(false);
  });

  it("without closeLingerMs (a reply subscription), forgets the consumer as soon as the close is confirmed", async () => {
    const { connection, consumer } = await subscribed("non-persistent://t/response/q", 0);
    const started = Date.now();
    await consumer.close();
    expect(connection.listeners.has(7)).toBe(false);
    expect(Date.now() - started).toBeLessThan(100);
  });

  it("on a persistent topic, forgets the consumer as soon as the close is confirmed (the broker redelivers)", async () => {
    const { connection, consumer } = await subscribed("persistent://t/ns/q");
    const started = Date.now();
    await consumer.close();
    expect(connection.listeners.has(7)).toBe(false);
    expect(Date.now() - started).toBeLessThan(100);
  });
});
