import { randomUUID } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  PRIVATE_BROKER_PORTS,
  ProxyInstance,
  apacheClient,
  freePort,
  privateBroker,
  startOAuth2Issuer,
  waitFor,
  type OAuth2Issuer,
} from "@toolmesh/test-support";
import { BinaryTransport, OAuth2TokenSource, PulsarClient, WebSocketTransport, type IncomingMessage } from "../../src/index.js";

// OAuth2 (client credentials, as Apache's clients' AuthenticationOAuth2) against a real broker: one with
// RS256 token authentication (PULSAR_TOKEN_SIGNING=key-pair) and an OAuth2 issuer signing with the broker's
// key (oauth2-mock-server), so the access tokens it grants are Pulsar tokens. Apache's Python client takes
// the other end with its own AuthenticationOauth2.
const ports = PRIVATE_BROKER_PORTS["pulsar/oauth2"];
const broker = privateBroker("pulsar/oauth2", {
  tokenAuth: true,
  tokenSigning: "key-pair",
  // Expired tokens are found (and challenged) within a second, not Pulsar's default minute.
  authRefreshCheckSeconds: 1,
});
// Pulsar's proxy in front of it, as Kubernetes deployments run it: it checks (and challenges) the client's
// token itself and passes it on to the broker.
const proxy = new ProxyInstance({ broker, port: ports.proxy, webPort: ports.proxyWeb });
let issuer: OAuth2Issuer;
const clients: PulsarClient[] = [];
const dir = join(tmpdir(), `toolmesh-oauth2-keys-${process.pid}`);
const topic = (name: string) => `persistent://public/default/${name}-${randomUUID().slice(0, 8)}`;
const expected = [0, 1, 2].map((i) => ({ payload: `message-${i}`, properties: { i: String(i) } }));

const source = (overrides: { privateKey?: string; issuerUrl?: string; audience?: string; scope?: string } = {}) =>
  new OAuth2TokenSource({ issuerUrl: issuer.issuerUrl, privateKey: issuer.credentialsFile, ...overrides });

function binaryClient(tokens: OAuth2TokenSource | undefined, serviceUrl = broker.serviceUrl): PulsarClient {
  const transport = new BinaryTransport({
    serviceUrl,
    operationTimeoutMs: 15_000,
    authToken: tokens ? () => tokens.token() : undefined,
  });
  const client = new PulsarClient({ webServiceUrl: broker.webServiceUrl, transport });
  clients.push(client);
  return client;
}

async function collect(client: PulsarClient, name: string) {
  const received: IncomingMessage[] = [];
  await client.subscribe(
    { topic: name, subscription: "ours", type: "Exclusive", initialPosition: "Earliest" },
    async (message) => void received.push(message),
  );
  return received;
}

/** When each consumer of subscription `ours` on `name` connected, from the broker's topic stats. */
async function connectedSince(name: string): Promise<string[] | undefined> {
  const response = await fetch(`${broker.webServiceUrl}/admin/v2/persistent/public/default/${name.split("/").pop()}/stats`, {
    headers: { authorization: `Bearer ${broker.adminToken()}` },
  });
  const stats = (await response.json()) as { subscriptions: Record<string, { consumers: Array<{ connectedSince: string }> }> };
  return stats.subscriptions.ours?.consumers.map((c) => c.connectedSince);
}

async function roundTrip(client: PulsarClient, name: string) {
  const received = await collect(client, name);
  for (let i = 0; i < 3; i++) await client.send(name, Buffer.from(`message-${i}`), { i: String(i) });
  await waitFor(() => received.length === 3, { description: "three messages" });
  return received.map((m) => ({ payload: m.payload.toString(), properties: m.properties }));
}

beforeAll(async () => {
  await broker.start();
  await proxy.start();
  issuer = await startOAuth2Issuer({ privateKeyFile: broker.tokenPrivateKeyFile, tokenTtlSeconds: 60 });
}, 120_000);
afterAll(async () => {
  // Not after each test: the expiry cases run at once, and one ending must not close another's client.
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
  await issuer?.stop();
  await proxy.stop({ kill: true }).catch(() => undefined);
  await broker.discard();
  rmSync(dir, { recursive: true, force: true });
});

describe("the token source", () => {
  it("asks the issuer once for many callers, and again only near the token's end", async () => {
    // exp is in whole seconds, so a 4 s token has 3 to 4 s left when it arrives: renewed 90% in, less a
    // second for that rounding, so 1.7 to 2.6 s after it was asked for. (2 s tokens could be renewed at once.)
    const short = await startOAuth2Issuer({ privateKeyFile: broker.tokenPrivateKeyFile, tokenTtlSeconds: 4 });
    try {
      const tokens = new OAuth2TokenSource({ issuerUrl: short.issuerUrl, privateKey: short.credentialsFile });
      const first = await Promise.all(Array.from({ length: 10 }, () => tokens.token()));
      expect(new Set(first).size).toBe(1);
      expect(await tokens.token()).toBe(first[0]);
      expect(short.requests).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 2_700));
      const renewed = await tokens.token();
      expect(renewed).not.toBe(first[0]);
      expect(short.requests.map((r) => r.granted)).toEqual([true, true]);
    } finally {
      await short.stop();
    }
  });

  it("gets a new token at once when the broker rejects the cached one, whatever expires_in said", async () => {
    const tokens = source();
    const before = issuer.requests.length;
    const first = await tokens.token();
    const second = await tokens.token({ rejected: first });
    expect(second).not.toBe(first);
    // A rejection of some older token leaves the current one alone.
    expect(await tokens.token({ rejected: first })).toBe(second);
    expect(issuer.requests.length - before).toBe(2);
  });

  it("sends the audience and scope it is given, with the key file's client id", async () => {
    const before = issuer.requests.length;
    await source({ audience: "urn:toolmesh:pulsar", scope: "pulsar produce" }).token();
    expect(issuer.requests.slice(before)).toEqual([
      { clientId: issuer.clientId, audience: "urn:toolmesh:pulsar", scope: "pulsar produce", granted: true },
    ]);
  });

  it("says which client the issuer refused and why, never the secret; reads the key file again at the next request", async () => {
    const keyFile = join(dir, "rotating.json");
    const write = (secret: string) =>
      writeFileSync(keyFile, JSON.stringify({ type: "client_credentials", client_id: issuer.clientId, client_secret: secret }));
    mkdirSync(dir, { recursive: true });
    write("not-the-secret");
    const tokens = source({ privateKey: keyFile });
    const refused = await tokens.token().catch((err: Error) => err.message);
    expect(refused).toMatch(
      new RegExp(`^OAuth2 issuer ${issuer.issuerUrl}/? refused client "${issuer.clientId}": HTTP 401 invalid_client`),
    );
    expect(refused).not.toContain("not-the-secret");
    // Retries within a second get the same answer without asking: many connections must not flood the issuer.
    const asked = issuer.requests.length;
    const retries = await Promise.all(Array.from({ length: 20 }, () => tokens.token().catch((err: Error) => err.message)));
    expect(new Set(retries)).toEqual(new Set([refused]));
    expect(issuer.requests.length).toBe(asked);
    // The operator fixes the secret in place: no restart needed.
    write(issuer.clientSecret);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await tokens.token()).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it("names an issuer it cannot reach", async () => {
    const port = await freePort(); // nothing listens there
    const unreachable = source({ issuerUrl: `http://127.0.0.1:${port}` });
    await expect(unreachable.token()).rejects.toThrow(
      new RegExp(`^could not get a token from the OAuth2 issuer http://127\\.0\\.0\\.1:${port}/: fetch failed \\(ECONNREFUSED\\)$`),
    );
  });
});

// Each waits for a token to expire, so they wait at once.
describe.concurrent("a token source whose cache outlives the token", () => {
  /**
   * A binary client whose token source offers `cached` until told the broker rejected it, then `fresh`;
   * `hints` records each ask: undefined, or "rejected" when it named `cached` as refused.
   */
  function staleCacheClient(cached: string, fresh: string) {
    const hints: Array<string | undefined> = [];
    const authToken = async (hint?: { rejected?: string }) => {
      hints.push(hint?.rejected === cached ? "rejected" : hint?.rejected);
      return hint?.rejected === cached ? fresh : cached;
    };
    const transport = new BinaryTransport({ serviceUrl: broker.serviceUrl, operationTimeoutMs: 15_000, authToken });
    const client = new PulsarClient({ webServiceUrl: broker.webServiceUrl, transport });
    clients.push(client);
    return { hints, client };
  }

  it("is asked again with the token the broker rejected, and the connection stays", async () => {
    // A expires in 5 s; the source keeps offering it until told the broker rejected it, then gives B.
    const lasting = await broker.signToken("client");
    const expiring = await broker.signToken("client", { expiresAt: Math.floor(Date.now() / 1000) + 5 });
    const { hints, client } = staleCacheClient(expiring, lasting);
    const name = topic("stale-cache");
    const received = await collect(client, name);
    await client.send(name, Buffer.from("before"));
    const since = await connectedSince(name);
    expect(hints).not.toContain("rejected"); // connected with A, so what follows is the broker's challenge
    await new Promise((resolve) => setTimeout(resolve, 7_000));
    await client.send(name, Buffer.from("after"));
    await waitFor(() => received.length === 2, { description: "the message sent after A expired" });
    expect(received.map((m) => m.payload.toString())).toEqual(["before", "after"]);
    expect(hints).toContain("rejected");
    // The challenge was answered with B: the consumer kept its connection.
    expect(await connectedSince(name)).toEqual(since);
  }, 30_000);

  it("is asked again when the broker refuses its token at CONNECT, and the first send goes through", async () => {
    const lasting = await broker.signToken("client");
    const expired = await broker.signToken("client", { expiresAt: Math.floor(Date.now() / 1000) - 5 });
    const { hints, client } = staleCacheClient(expired, lasting);
    const name = topic("expired-at-connect");
    const received = await collect(client, name);
    await client.send(name, Buffer.from("first"));
    await waitFor(() => received.length === 1, { description: "the first message" });
    expect(received[0]!.payload.toString()).toBe("first");
    expect(hints.slice(0, 2)).toEqual([undefined, "rejected"]);
  }, 30_000);

  it("tries a refused token once more only: a source that offers it again gets the broker's refusal", async () => {
    const expired = await broker.signToken("client", { expiresAt: Math.floor(Date.now() / 1000) - 5 });
    const { hints, client } = staleCacheClient(expired, expired);
    await expect(client.send(topic("refused-twice"), Buffer.from("x"))).rejects.toThrow(/AuthenticationError/);
    expect(hints).toEqual([undefined, "rejected"]);
  }, 30_000);
});

describe("the transports with OAuth2 tokens", () => {
  it("produces and consumes over the binary protocol; without a token the broker refuses", async () => {
    expect(await roundTrip(binaryClient(source()), topic("oauth2-binary"))).toEqual(expected);
    await expect(binaryClient(undefined).send(topic("oauth2-none"), Buffer.from("x"))).rejects.toThrow(/authenticat/i);
  });

  it("produces and consumes over the WebSocket API", async () => {
    const tokens = source();
    const transport = new WebSocketTransport({
      webServiceUrl: broker.webServiceUrl,
      logger: pino({ level: "silent" }),
      authToken: () => tokens.token(),
    });
    const client = new PulsarClient({ webServiceUrl: broker.webServiceUrl, transport });
    clients.push(client);
    expect(await roundTrip(client, topic("oauth2-ws"))).toEqual(expected);
  });

  it("hands Apache's client (its own AuthenticationOauth2) what we produce, and takes what it produces", async () => {
    const ours = binaryClient(source());
    const oauth2 = { issuerUrl: issuer.issuerUrl, credentialsFile: issuer.credentialsFile };
    const toApache = topic("oauth2-to-apache");
    const consumer = apacheClient("consume", { url: broker.serviceUrl, oauth2, topic: toApache });
    await consumer.ready;
    for (let i = 0; i < 3; i++) await ours.send(toApache, Buffer.from(`message-${i}`), { i: String(i) });
    expect((await consumer.result).received).toEqual(expected);

    const fromApache = topic("oauth2-from-apache");
    const received = await collect(ours, fromApache);
    await apacheClient("produce", { url: broker.serviceUrl, oauth2, topic: fromApache }).result;
    await waitFor(() => received.length === 3, { description: "Apache's three messages" });
    expect(received.map((m) => ({ payload: m.payload.toString(), properties: m.properties }))).toEqual(expected);
  });

  // Each waits out two token lifetimes (7 s), so the three wait at once.
  it.concurrent.each([
    ["directly", () => broker.serviceUrl, undefined],
    ["through the Pulsar proxy", () => proxy.serviceUrl, undefined],
    // The cache believes the token is good for an hour: only the broker's challenge says otherwise.
    ["directly, the issuer's expires_in saying an hour", () => broker.serviceUrl, 3_600],
  ])(
    "keeps its connection %s when a token expires: it is challenged, and answers with a new token",
    async (_case, serviceUrl, advertised) => {
      const short = await startOAuth2Issuer({
        privateKeyFile: broker.tokenPrivateKeyFile,
        tokenTtlSeconds: 3,
        ...(advertised ? { advertisedTtlSeconds: advertised } : {}),
      });
      try {
        const client = binaryClient(new OAuth2TokenSource({ issuerUrl: short.issuerUrl, privateKey: short.credentialsFile }), serviceUrl());
        const name = topic("oauth2-expiry");
        const received = await collect(client, name);
        await client.send(name, Buffer.from("before"));
        const since = await connectedSince(name);
        expect(since).toHaveLength(1);
        // Two lifetimes pass; each expiry is challenged within the broker's refresh check (1 s).
        await new Promise((resolve) => setTimeout(resolve, 7_000));
        await client.send(name, Buffer.from("after"));
        await waitFor(() => received.length === 2, { description: "the message sent after the tokens expired" });
        expect(received.map((m) => m.payload.toString())).toEqual(["before", "after"]);
        expect(short.requests.filter((r) => r.granted).length).toBeGreaterThanOrEqual(3);
        // The same consumer session: the connection was not closed when the first token expired.
        expect(await connectedSince(name)).toEqual(since);
      } finally {
        await short.stop();
      }
    },
    60_000,
  );
});
