import { createHash } from "node:crypto";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Broker, clientOptions, pythonPeer, uniqueTopic, useBroker, waitFor } from "@toolmesh/test-support";
import { z } from "zod";
import { PulsarClient, RequestClient, RequestTimeoutError, type IncomingMessage } from "../../src/index.js";
import { runPeer } from "./run-peer.js";

// Apache's C++ client (through Python's pulsar-client) on the other end of our binary transport:
// batches and compressed payloads it produces must arrive intact, and it must read what we produce.
const PEERS = resolve(import.meta.dirname, "peers");
let python: string;
let broker: Broker;
let client: PulsarClient;

beforeAll(async () => {
  python = pythonPeer("pulsar");
  broker = await useBroker();
  client = new PulsarClient(clientOptions(broker, "binary"));
});
afterAll(() => client?.close());

/** Runs a peer script of peers/ with the Python client's interpreter. */
const runScript = (script: string, args: string[], onLine?: (line: string) => void) =>
  runPeer(python, [resolve(PEERS, script), ...args], onLine);

const expectedPayload = (i: number) => `{"i": ${i}, "text": "${"toolmesh ".repeat(40)}"}`;

describe("messages from Apache's C++ client (Python pulsar-client)", () => {
  it.each([
    ["LZ4", true],
    ["ZSTD", true],
    ["ZLib", true],
    ["SNAPPY", true],
    ["LZ4", false],
    ["NONE", true],
  ])(
    "arrive intact with %s compression, batching %s: payloads, properties, keys, order",
    async (codec, batching) => {
      const count = 300;
      const topic = uniqueTopic(`peer-${codec.toLowerCase()}`, { persistence: "persistent", namespace: "flow" });
      const received: IncomingMessage[] = [];
      const sub = await client.subscribe({ topic, subscription: "ours", type: "Exclusive" }, async (m) => {
        received.push(m);
      });
      const lines = await runScript("produce.py", [broker.serviceUrl, topic, String(count), codec, String(batching)]).done;
      expect(lines).toContain(`sent ${count}`);
      await waitFor(() => received.length >= count, { timeoutMs: 20_000, description: `${count} messages` });
      expect(received).toHaveLength(count);
      received.forEach((m, i) => {
        expect(m.payload.toString()).toBe(expectedPayload(i));
        expect(m.properties).toEqual({ i: String(i), peer: "python", codec });
        expect(m.key).toBe(`key-${i % 3}`);
      });
      // Batched: several messages share an entry and differ by batch index (ledger:entry:partition:index).
      const entries = new Set(received.map((m) => m.messageId.split(":").slice(0, 2).join(":")));
      if (batching) expect(entries.size).toBeLessThan(count);
      else expect(entries.size).toBe(count);
      await sub.close();
    },
    60_000,
  );

  it("acks every message of a batch, so a new consumer on the subscription gets nothing again", async () => {
    const topic = uniqueTopic("peer-acks", { persistence: "persistent", namespace: "flow" });
    const first: IncomingMessage[] = [];
    const sub = await client.subscribe({ topic, subscription: "ours", type: "Shared" }, async (m) => {
      first.push(m);
    });
    await runScript("produce.py", [broker.serviceUrl, topic, "100", "LZ4", "true"]).done;
    await waitFor(() => first.length === 100, { description: "100 messages" });
    await sub.close();

    const again: IncomingMessage[] = [];
    const marker = await client.subscribe({ topic, subscription: "ours", type: "Shared" }, async (m) => {
      again.push(m);
    });
    await client.sendJson(topic, { marker: true });
    await waitFor(() => again.length >= 1, { description: "the marker" });
    expect(again.map((m) => m.payload.toString())).toEqual([JSON.stringify({ marker: true })]);
    await marker.close();
  }, 60_000);
});

describe("chunked messages from Apache's C++ client (Python pulsar-client, chunking on)", () => {
  it.each([["NONE"], ["LZ4"]])(
    "arrive whole with %s compression: messages over the broker's 5 MB limit, in chunks, each acked with all its chunks",
    async (codec) => {
      const count = 3;
      const size = 12 * 1024 * 1024;
      const topic = uniqueTopic(`peer-chunked-${codec.toLowerCase()}`, { persistence: "persistent", namespace: "flow" });
      const received: IncomingMessage[] = [];
      const sub = await client.subscribe({ topic, subscription: "ours", type: "Exclusive" }, async (m) => {
        received.push(m);
      });
      const output = await runScript("produce_chunked.py", [broker.serviceUrl, topic, String(count), String(size), codec]).done;
      expect(output).toContain(`sent ${count}`);
      // "<i> <sha256>" per message (the C++ client's own log lines are on stdout too).
      const lines = output.filter((line) => /^\d+ [0-9a-f]{64}$/.test(line));
      expect(lines).toHaveLength(count);
      await waitFor(() => received.length >= count, { timeoutMs: 30_000, description: `${count} chunked messages` });
      expect(received).toHaveLength(count);
      received.forEach((m, i) => {
        expect(m.payload.length).toBe(size);
        expect(`${i} ${createHash("sha256").update(m.payload).digest("hex")}`).toBe(lines[i]);
        expect(m.properties).toEqual({ i: String(i), peer: "python", codec });
        expect(m.key).toBe(`big-${i}`);
      });
      // Every chunk was stored as an entry of its own: 12 MB in chunks of at most 5 MB is 3 entries a message.
      const stats = (await (await fetch(`${broker.webServiceUrl}/admin/v2/${topic.replace("://", "/")}/stats`)).json()) as {
        msgInCounter: number;
      };
      expect(stats.msgInCounter).toBe(count * 3);
      await sub.close();

      // Acked whole: the subscription has nothing left but a marker sent now.
      const again: IncomingMessage[] = [];
      const marker = await client.subscribe({ topic, subscription: "ours", type: "Exclusive" }, async (m) => {
        again.push(m);
      });
      await client.sendJson(topic, { marker: true });
      await waitFor(() => again.length >= 1, { description: "the marker" });
      await new Promise((r) => setTimeout(r, 500));
      expect(again.map((m) => m.payload.toString())).toEqual([JSON.stringify({ marker: true })]);
      await marker.close();
    },
    120_000,
  );
});

describe("messages from our producer", () => {
  it("are read by Apache's C++ client with payloads, properties and keys", async () => {
    const topic = uniqueTopic("peer-reader", { persistence: "persistent", namespace: "flow" });
    let ready = false;
    const peer = runScript("consume.py", [broker.serviceUrl, topic, "20"], (line) => {
      if (line === "ready") ready = true;
    });
    await waitFor(() => ready, { timeoutMs: 30_000, description: "the Python consumer" });
    const producer = await client.producer(topic);
    for (let i = 0; i < 20; i++) {
      await producer.send({ payload: Buffer.from(`héllo ${i} ✓`), properties: { i: String(i), from: "toolmesh" }, key: `k${i % 2}` });
    }
    // The C++ client logs to stdout too; the script's own lines are the JSON ones.
    const lines = (await peer.done).filter((line) => line.startsWith("{")).map((line) => JSON.parse(line));
    expect(lines).toEqual(
      Array.from({ length: 20 }, (_, i) => ({ payload: `héllo ${i} ✓`, properties: { i: String(i), from: "toolmesh" }, key: `k${i % 2}` })),
    );
  }, 60_000);
});

describe("the service check, with Apache's C++ client consuming the request topic", () => {
  it("counts it as a consumer: a request it takes and never answers times out, not 'nothing consumes'", async () => {
    const topic = uniqueTopic("peer-silent-service");
    let ready = false;
    const taken: string[] = [];
    // Asked for two messages and sent one, the peer stays subscribed for the whole call (a service that is slow).
    const peer = runScript("consume.py", [broker.serviceUrl, topic, "2"], (line) => {
      if (line === "ready") ready = true;
      if (line.startsWith("{")) taken.push((JSON.parse(line) as { payload: string }).payload);
    });
    peer.done.catch(() => undefined); // killed below
    await waitFor(() => ready, { timeoutMs: 30_000, description: "the Python consumer" });
    const checked = new PulsarClient({ ...clientOptions(broker, "binary"), serviceCheckAfterMs: 300 });
    try {
      const caller = await RequestClient.create(checked, {
        requestTopic: topic,
        responseTopic: topic.replace("/request/", "/response/"),
        responseSchema: z.unknown(),
      });
      // The check runs at 300 ms and finds the peer's consumer, so the call waits out its 2 s.
      await expect(caller.request({ q: "anyone?" }, { timeoutMs: 2_000 })).rejects.toBeInstanceOf(RequestTimeoutError);
      expect(taken.map((payload) => JSON.parse(payload))).toEqual([{ q: "anyone?" }]);
    } finally {
      peer.child.kill("SIGKILL");
      await checked.close();
    }
  }, 60_000);
});
