import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OAuth2TokenSource, PulsarClient } from "@toolmesh/pulsar";
import { ServiceProcess, privateBroker, startOAuth2Issuer, trustGraphToolCalls, type OAuth2Issuer } from "@toolmesh/test-support";
import { withTrustGraphToolService } from "./fixtures/trustgraph-service.js";

// A broker that authenticates every client (RS256 tokens, PULSAR_TOKEN_SIGNING=key-pair), toolmesh
// authenticating with OAuth2 (PULSAR_OAUTH2_*: tokens from an issuer that signs with the broker's key, short-
// lived so they expire mid-test), and TrustGraph 2.11.1 beside it with its own `pulsar_api_key` (a token
// from Pulsar's token tool), calling each other both ways. TrustGraph fixes the tenant: tg.
const broker = privateBroker("e2e/pulsar-oauth2", {
  tokenAuth: true,
  tokenSigning: "key-pair",
  authRefreshCheckSeconds: 1,
});
const TOKEN_TTL_S = 4;
let issuer: OAuth2Issuer;
let joke: ServiceProcess;
let trustGraphToken: string;

const jokeTopics = { requestTopic: "non-persistent://tg/request/joke", responseTopic: "non-persistent://tg/response/joke" };
const oauth2Env = () => ({
  PULSAR_SERVICE_URL: broker.serviceUrl,
  PULSAR_WEB_URL: broker.webServiceUrl,
  PULSAR_OAUTH2_ISSUER_URL: issuer.issuerUrl,
  PULSAR_OAUTH2_PRIVATE_KEY: issuer.credentialsFile,
  PULSAR_OAUTH2_AUDIENCE: "urn:toolmesh:test-cluster",
  TOOLMESH_TENANT: "tg",
});

beforeAll(async () => {
  await broker.start();
  issuer = await startOAuth2Issuer({ privateKeyFile: broker.tokenPrivateKeyFile, tokenTtlSeconds: TOKEN_TTL_S });
  trustGraphToken = await broker.signToken("trustgraph");
  joke = await ServiceProcess.start({
    service: "joke-service",
    env: { ...oauth2Env(), JOKE_ANNOUNCE: "false", BROKER_DROPS_POLL_MS: "1000" },
  });
}, 180_000);

afterAll(async () => {
  await joke?.stop();
  await issuer?.stop();
  await broker.discard();
});

// The first case waits out two token lifetimes; the others run meanwhile (their own topics and processes).
describe.concurrent("toolmesh on OAuth2, TrustGraph on a token, one secured broker", () => {
  it("TrustGraph's ToolServiceClient gets jokes from the joke-service, before and after its OAuth2 tokens expire", async () => {
    const ask = () =>
      trustGraphToolCalls(broker.serviceUrl, jokeTopics, [{ config: { style: "dad-joke" }, arguments: { topic: "cats" } }], {
        apiKey: trustGraphToken,
      });
    const cats = { response: "Why don't cats play poker in the jungle? Too many cheetahs." };
    expect((await ask()).results).toEqual([cats]);
    // Two token lifetimes: the broker challenges the joke-service's connections, which answer with new tokens.
    await new Promise((resolve) => setTimeout(resolve, 2 * TOKEN_TTL_S * 1000 + 1000));
    expect((await ask()).results).toEqual([cats]);
    const grants = issuer.requests.filter((r) => r.granted && r.audience === "urn:toolmesh:test-cluster");
    expect(grants.length).toBeGreaterThanOrEqual(3);
    // Its connections stayed up (a closed one logs a reconnect), and its admin calls were let in.
    expect(joke.logs).not.toMatch(/reconnect/i);
    expect(joke.logs).not.toMatch(/refused topic stats/);
    expect(await fetch(`${joke.url}/readyz`).then((r) => r.status)).toBe(200);
  }, 90_000);

  it("toolmesh's ToolServiceClient (OAuth2) calls TrustGraph's DynamicToolService (token)", async () => {
    const tokens = new OAuth2TokenSource({ issuerUrl: issuer.issuerUrl, privateKey: issuer.credentialsFile });
    const pulsar = new PulsarClient({
      serviceUrl: broker.serviceUrl,
      webServiceUrl: broker.webServiceUrl,
      authToken: () => tokens.token(),
    });
    try {
      await withTrustGraphToolService(
        pulsar,
        broker.serviceUrl,
        "tg-oauth2",
        async (client) => {
          expect(await client.call("alice", { style: "dad" }, { topic: "cats" })).toBe("dad: cats (trustgraph)");
        },
        { apiKey: trustGraphToken },
      );
    } finally {
      await pulsar.close();
    }
  }, 90_000);

  it("a service whose issuer refuses its credentials never becomes ready, and says why", async () => {
    const refused = ServiceProcess.start({
      service: "joke-service",
      env: {
        ...oauth2Env(),
        PULSAR_OAUTH2_PRIVATE_KEY: `data:application/json,${encodeURIComponent(JSON.stringify({ client_id: issuer.clientId, client_secret: "wrong" }))}`,
      },
      timeoutMs: 8_000,
    });
    await expect(refused).rejects.toThrow(/refused client .*HTTP 401 invalid_client/);
  }, 30_000);
});
