import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PRIVATE_BROKER_PORTS, apacheClient, foreignToken, startSecuredBroker, type SecuredBroker } from "../../src/index.js";

// Apache's own client (C++ via PyPI's pulsar-client) against infra/pulsar's token authentication, TLS and
// Pulsar proxy: proof that the broker side is right before our binary transport is tested against it
// (packages/pulsar/test/integration/binary-secured.test.ts). A private broker on ports of its own.
let secured: SecuredBroker;
const topic = (name: string) => `persistent://public/default/${name}-${randomUUID().slice(0, 8)}`;
const expected = [0, 1, 2].map((i) => ({ payload: `message-${i}`, properties: { i: String(i) } }));
const refusals = () =>
  readFileSync(join(secured.broker.options.home, "logs/pulsar.log"), "utf8").split("Failed to authenticate").length - 1;

beforeAll(async () => {
  secured = await startSecuredBroker("apache-secured", PRIVATE_BROKER_PORTS["test-support/secured-broker"]);
});
afterAll(() => secured?.stop());

describe("token authentication (a broker started with a secret key)", () => {
  it("lets Apache's client produce and consume with a token made by Pulsar's token tool", async () => {
    const result = await apacheClient("roundtrip", { url: secured.broker.serviceUrl, token: secured.token, topic: topic("token") }).result;
    expect(result.error).toBeUndefined();
    expect(result.received).toEqual(expected);
  });

  it.each([
    ["signed with another key", () => foreignToken()],
    ["missing", () => undefined],
  ])("refuses a client whose token is %s", async (_case, token) => {
    const before = refusals();
    const result = await apacheClient("roundtrip", {
      url: secured.broker.serviceUrl,
      token: token(),
      topic: topic("refused"),
      timeoutMs: 3_000,
    }).result;
    expect(result.ok).toBe(false);
    expect(result.received).toBeUndefined();
    // The C++ client reports a refused CONNECT as a timeout; the broker's log says why.
    expect(refusals()).toBeGreaterThan(before);
  });

  it("refuses the admin API without a token", async () => {
    const response = await fetch(`${secured.broker.webServiceUrl}/admin/v2/tenants`);
    expect(response.status).toBe(401);
  });
});

describe("TLS with a self-signed CA", () => {
  it("carries Apache's client over pulsar+ssl:// when it trusts the CA", async () => {
    const url = secured.broker.serviceUrlTls!;
    expect(url).toMatch(/^pulsar\+ssl:\/\/127\.0\.0\.1:26851$/);
    const result = await apacheClient("roundtrip", { url, ca: secured.broker.tlsCaFile, token: secured.token, topic: topic("tls") }).result;
    expect(result.error).toBeUndefined();
    expect(result.received).toEqual(expected);
  });

  it("fails the handshake when the client does not trust the CA", async () => {
    const url = secured.broker.serviceUrlTls!;
    const result = await apacheClient("roundtrip", { url, token: secured.token, topic: topic("untrusted"), timeoutMs: 3_000 }).result;
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/ConnectError/);
  });
});

describe("the Pulsar proxy in front of the broker", () => {
  it("relays a consumer that only knows the proxy's URL", async () => {
    const name = topic("proxy");
    const consumer = apacheClient("consume", { url: secured.proxy.serviceUrl, token: secured.token, topic: name });
    await consumer.ready;
    // The consumer's connection to the broker runs through the proxy (not only its lookup).
    expect(await secured.proxiedConnections()).toBeGreaterThanOrEqual(1);
    const producer = await apacheClient("produce", { url: secured.broker.serviceUrl, token: secured.token, topic: name }).result;
    expect(producer.sent).toHaveLength(3);
    const result = await consumer.result;
    expect(result.error).toBeUndefined();
    expect(result.received).toEqual(expected);
  });

  it("refuses a foreign token at the proxy too", async () => {
    const result = await apacheClient("roundtrip", {
      url: secured.proxy.serviceUrl,
      token: foreignToken(),
      topic: topic("proxy-refused"),
      timeoutMs: 3_000,
    }).result;
    expect(result.ok).toBe(false);
  });
});
