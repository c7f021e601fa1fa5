import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PRIVATE_BROKER_PORTS, apacheClient, foreignToken, startSecuredBroker, waitFor, type SecuredBroker } from "@toolmesh/test-support";
import pino from "pino";
import {
  BinaryTransport,
  BrokerDrops,
  PulsarClient,
  WebSocketTransport,
  type BinaryTransportOptions,
  type IncomingMessage,
} from "../../src/index.js";

// Our binary-protocol transport against infra/pulsar's token authentication, TLS and Pulsar proxy, with
// Apache's own client on the other end where it matters; then the WebSocket transport and the admin calls
// (broker-drop counting) with the same token. The same broker setup is first proven with
// Apache's client alone (packages/test-support/test/integration/secured-broker.test.ts).
// Needs BinaryTransport (packages/pulsar/src/binary/, the `binary` branch).
let secured: SecuredBroker;
const clients: PulsarClient[] = [];
const topic = (name: string) => `persistent://public/default/${name}-${randomUUID().slice(0, 8)}`;
const expected = [0, 1, 2].map((i) => ({ payload: `message-${i}`, properties: { i: String(i) } }));

function connect(options: Omit<BinaryTransportOptions, "serviceUrl"> & { serviceUrl?: string }): PulsarClient {
  // The first persistent topic on a freshly started broker can take seconds on a busy 2-core machine.
  const transport = new BinaryTransport({ serviceUrl: secured.broker.serviceUrl, operationTimeoutMs: 15_000, ...options });
  const client = new PulsarClient({ webServiceUrl: secured.broker.webServiceUrl, transport });
  clients.push(client);
  return client;
}

async function collect(client: PulsarClient, name: string) {
  const received: IncomingMessage[] = [];
  const subscription = await client.subscribe(
    { topic: name, subscription: "ours", type: "Exclusive", initialPosition: "Earliest" },
    async (message) => void received.push(message),
  );
  return { received, subscription };
}

/** Three messages out and back on one client (its producer and its consumer). */
async function roundTrip(client: PulsarClient, name: string): Promise<Array<{ payload: string; properties: Record<string, string> }>> {
  const { received } = await collect(client, name);
  for (let i = 0; i < 3; i++) await client.send(name, Buffer.from(`message-${i}`), { i: String(i) });
  await waitFor(() => received.length === 3, { description: "three messages" });
  return received.map((m) => ({ payload: m.payload.toString(), properties: m.properties }));
}

beforeAll(async () => {
  secured = await startSecuredBroker("binary-secured", PRIVATE_BROKER_PORTS["pulsar/binary-secured"]);
});
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
});
afterAll(() => secured?.stop());

describe("token authentication", () => {
  it("produces and consumes with a token made by Pulsar's token tool", async () => {
    expect(await roundTrip(connect({ authToken: secured.token }), topic("token"))).toEqual(expected);
  });

  it("takes the token from a supplier (e.g. a file re-read on every connect)", async () => {
    const client = connect({ authToken: async () => secured.token });
    expect(await roundTrip(client, topic("token-supplier"))).toEqual(expected);
  });

  it.each([
    ["signed with another key", foreignToken()],
    ["missing", undefined],
  ])("fails with an authentication error when the token is %s", async (_case, authToken) => {
    const client = connect({ authToken });
    await expect(client.send(topic("refused"), Buffer.from("x"))).rejects.toThrow(/authenticat/i);
  });

  it("hands Apache's client what we produce, and takes what it produces", async () => {
    const ours = connect({ authToken: secured.token });
    const toApache = topic("to-apache");
    const consumer = apacheClient("consume", { url: secured.broker.serviceUrl, token: secured.token, topic: toApache });
    await consumer.ready;
    for (let i = 0; i < 3; i++) await ours.send(toApache, Buffer.from(`message-${i}`), { i: String(i) });
    expect((await consumer.result).received).toEqual(expected);

    const fromApache = topic("from-apache");
    const { received } = await collect(ours, fromApache);
    await apacheClient("produce", { url: secured.broker.serviceUrl, token: secured.token, topic: fromApache }).result;
    await waitFor(() => received.length === 3, { description: "Apache's three messages" });
    expect(received.map((m) => ({ payload: m.payload.toString(), properties: m.properties }))).toEqual(expected);
  });
});

describe("TLS with a self-signed CA", () => {
  it("produces and consumes over pulsar+ssl:// when given the CA", async () => {
    const client = connect({
      serviceUrl: secured.broker.serviceUrlTls!,
      authToken: secured.token,
      tls: { ca: readFileSync(secured.broker.tlsCaFile) },
    });
    expect(await roundTrip(client, topic("tls"))).toEqual(expected);
  });

  it("refuses a broker certificate it cannot verify", async () => {
    const client = connect({ serviceUrl: secured.broker.serviceUrlTls!, authToken: secured.token, operationTimeoutMs: 5_000 });
    await expect(client.send(topic("untrusted"), Buffer.from("x"))).rejects.toThrow(/certificate/i);
  });
});

describe("through the Pulsar proxy (lookups answered with proxyThroughServiceUrl)", () => {
  it("consumes and produces knowing only the proxy's URL, with Apache's client on the broker side", async () => {
    const ours = connect({ serviceUrl: secured.proxy.serviceUrl, authToken: secured.token });
    const inbound = topic("proxy-in");
    const { received } = await collect(ours, inbound);
    // Our consumer's connection is relayed by the proxy, not opened to the broker directly.
    expect(await secured.proxiedConnections()).toBeGreaterThanOrEqual(1);
    await apacheClient("produce", { url: secured.broker.serviceUrl, token: secured.token, topic: inbound }).result;
    await waitFor(() => received.length === 3, { description: "three messages through the proxy" });
    expect(received.map((m) => m.payload.toString())).toEqual(expected.map((e) => e.payload));

    const outbound = topic("proxy-out");
    const consumer = apacheClient("consume", { url: secured.broker.serviceUrl, token: secured.token, topic: outbound });
    await consumer.ready;
    for (let i = 0; i < 3; i++) await ours.send(outbound, Buffer.from(`message-${i}`), { i: String(i) });
    expect((await consumer.result).received).toEqual(expected);
  });
});

describe("the WebSocket transport with a token", () => {
  const overWebSocket = (authToken?: () => Promise<string>, tls?: { url: string; ca?: Buffer }) => {
    const transport = new WebSocketTransport({
      webServiceUrl: tls?.url ?? secured.broker.webServiceUrl,
      logger: pino({ level: "silent" }),
      authToken,
      ...(tls?.ca ? { tls: { ca: tls.ca } } : {}),
    });
    const client = new PulsarClient({ webServiceUrl: secured.broker.webServiceUrl, transport });
    clients.push(client);
    return client;
  };

  it("produces and consumes, the token sent as Authorization: Bearer on each session", async () => {
    let asked = 0;
    const client = overWebSocket(async () => (asked++, secured.token));
    expect(await roundTrip(client, topic("ws-token"))).toEqual(expected);
    expect(asked).toBeGreaterThanOrEqual(2); // one consumer session and one producer session at least
  });

  it.each([
    ["signed with another key", async () => foreignToken()],
    ["missing", undefined],
  ])("is refused with HTTP 401 when the token is %s", async (_case, authToken) => {
    const client = overWebSocket(authToken);
    await expect(client.send(topic("ws-refused"), Buffer.from("x"))).rejects.toThrow(/HTTP 401/);
  });

  it("produces and consumes over wss:// (the web service on TLS) when given the CA", async () => {
    const client = overWebSocket(async () => secured.token, {
      url: secured.broker.webServiceUrlTls!,
      ca: readFileSync(secured.broker.tlsCaFile),
    });
    expect(await roundTrip(client, topic("wss"))).toEqual(expected);
  });

  it("stops with a certificate error, instead of retrying for ever, when it cannot verify the broker", async () => {
    const client = overWebSocket(async () => secured.token, { url: secured.broker.webServiceUrlTls! });
    await expect(client.send(topic("wss-untrusted"), Buffer.from("x"))).rejects.toThrow(
      /TLS certificate did not verify: unable to verify the first certificate/,
    );
  });
});

describe("broker-drop counting on a broker with token authentication", () => {
  const drops = (authToken?: () => Promise<string>, tls?: { url: string; ca: Buffer }) => {
    const seen: string[] = [];
    const name = `non-persistent://public/default/drops-${randomUUID().slice(0, 8)}`;
    const watcher = new BrokerDrops({
      webServiceUrl: tls?.url ?? secured.broker.webServiceUrl,
      ...(tls ? { tls: { ca: tls.ca } } : {}),
      subscriptions: () => [{ topic: name, subscription: "ours" }],
      onDropped: (topic) => void seen.push(topic),
      logger: pino({ level: "silent" }),
      intervalMs: 0,
      authToken,
    });
    return { name, seen, watcher };
  };

  it("reads the topic stats with the token, and is refused without it", async () => {
    const client = connect({ authToken: secured.token });
    const withToken = drops(async () => secured.token);
    const without = drops();
    for (const { name } of [withToken, without]) {
      await client.subscribe({ topic: name, subscription: "ours", type: "Shared" }, async () => undefined);
    }
    await withToken.watcher.poll();
    await without.watcher.poll();
    // A subscription's first reading reports 0 dropped: proof the stats were read.
    expect(withToken.seen).toEqual([withToken.name]);
    expect(without.seen).toEqual([]);
  });

  it("reads them over https:// with the client's CA", async () => {
    const client = connect({ authToken: secured.token });
    const overTls = drops(async () => secured.token, { url: secured.broker.webServiceUrlTls!, ca: readFileSync(secured.broker.tlsCaFile) });
    await client.subscribe({ topic: overTls.name, subscription: "ours", type: "Shared" }, async () => undefined);
    await overTls.watcher.poll();
    overTls.watcher.stop();
    expect(overTls.seen).toEqual([overTls.name]);
  });
});
