import { createHash } from "node:crypto";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Broker, REPO_ROOT, clientOptions, uniqueTopic, useBroker, waitFor } from "@toolmesh/test-support";
import { type IncomingMessage, PulsarClient } from "../../src/index.js";
import { runPeer } from "./run-peer.js";

// Apache's Java client, the reference implementation (the pulsar-client jars the broker ships, run by
// infra/pulsar/java-client.sh), on the other end of our binary transport: what it produces (batched and
// compressed, or chunked) arrives intact, and it reads what we produce.
const JAVA_PEER = resolve(import.meta.dirname, "peers/JavaPeer.java");
let broker: Broker;
let client: PulsarClient;

beforeAll(async () => {
  broker = await useBroker();
  client = new PulsarClient(clientOptions(broker, "binary"));
});
afterAll(() => client?.close());

const java = (args: string[], onLine?: (line: string) => void) =>
  runPeer("bash", [resolve(REPO_ROOT, "infra/pulsar/java-client.sh"), JAVA_PEER, ...args], onLine);
/** The "<i> <sha256>" lines of a produce run (the client's own log lines are on stdout too). */
const digests = (lines: string[]) => lines.filter((line) => /^\d+ [0-9a-f]{64}$/.test(line));
const sha256 = (payload: Buffer) => createHash("sha256").update(payload).digest("hex");

async function receiveFromJava(topic: string, count: number, size: number, codec: string, batching: boolean, chunking: boolean) {
  const received: IncomingMessage[] = [];
  const sub = await client.subscribe({ topic, subscription: "ours", type: "Exclusive" }, async (m) => {
    received.push(m);
  });
  const output = await java(["produce", broker.serviceUrl, topic, String(count), String(size), codec, String(batching), String(chunking)])
    .done;
  expect(output).toContain(`sent ${count}`);
  const lines = digests(output);
  await waitFor(() => received.length >= count, { timeoutMs: 30_000, description: `${count} messages from the Java client` });
  await sub.close();
  expect(received).toHaveLength(count);
  received.forEach((m, i) => {
    expect(`${i} ${sha256(m.payload)}`).toBe(lines[i]);
    expect(m.properties).toEqual({ i: String(i), peer: "java", codec });
    expect(m.key).toBe(`java-${i}`);
  });
  return received;
}

describe("messages from Apache's Java client", () => {
  // One codec: each run starts a JVM (about 5 s); peer.test.ts covers every codec with the C++ client.
  it("arrive intact batched with ZSTD compression: payloads, properties, keys, order", async () => {
    const topic = uniqueTopic("java-zstd", { persistence: "persistent", namespace: "flow" });
    const received = await receiveFromJava(topic, 200, 300, "ZSTD", true, false);
    // Batched: several messages share an entry and differ by batch index (ledger:entry:partition:index).
    expect(new Set(received.map((m) => m.messageId.split(":").slice(0, 2).join(":"))).size).toBeLessThan(200);
  }, 90_000);

  it("arrive whole when chunked: 12 MB messages over the broker's 5 MB limit, ZSTD", async () => {
    const topic = uniqueTopic("java-chunked", { persistence: "persistent", namespace: "flow" });
    const received = await receiveFromJava(topic, 2, 12 * 1024 * 1024, "ZSTD", false, true);
    expect(received.map((m) => m.payload.length)).toEqual([12 * 1024 * 1024, 12 * 1024 * 1024]);
  }, 120_000);
});

describe("messages from our producer", () => {
  it("are read by Apache's Java client with payloads, properties and keys", async () => {
    const topic = uniqueTopic("java-reads", { persistence: "persistent", namespace: "flow" });
    for (let i = 0; i < 5; i++) {
      await client.send(topic, Buffer.from(`{"n": ${i}, "text": "héllo"}`), { n: String(i), from: "toolmesh" }, `k${i}`);
    }
    const lines = await java(["consume", broker.serviceUrl, topic, "java-reader", "5"]).done;
    expect(lines).toContain("received 5");
    expect(lines.filter((line) => line.startsWith("k"))).toEqual(
      [0, 1, 2, 3, 4].map((i) => `k${i} {from=toolmesh, n=${i}} {"n": ${i}, "text": "héllo"}`),
    );
  }, 90_000);
});
