import { createPrivateKey, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BrokerInstance, apacheClient, foreignToken, freePort, startOAuth2Issuer, type OAuth2Issuer } from "../../src/index.js";

// A broker whose tokens are RS256 (PULSAR_TOKEN_SIGNING=key-pair) and the OAuth2 issuer that signs with
// its private key: tokens from Pulsar's token tool and from the issuer both pass, Apache's client included
// when it fetches its own token (AuthenticationOauth2). One private broker on ports from TOOLMESH_TEST_PORTS.
const home = join(tmpdir(), `toolmesh-oauth2-broker-${process.pid}`);
let broker: BrokerInstance;
let issuer: OAuth2Issuer;
const AUDIENCE = "urn:toolmesh:pulsar";
const TTL = 600;
const topic = (name: string) => `persistent://public/default/${name}-${randomUUID().slice(0, 8)}`;
const expected = [0, 1, 2].map((i) => ({ payload: `message-${i}`, properties: { i: String(i) } }));

const tenants = (token?: string) =>
  fetch(`${broker.webServiceUrl}/admin/v2/tenants`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
/** A JWT's header and payload. */
const claims = (jwt: string) =>
  jwt
    .split(".")
    .slice(0, 2)
    .map((part) => JSON.parse(Buffer.from(part, "base64url").toString())) as unknown[];

async function tokenEndpoint(): Promise<string> {
  const discovery = (await (await fetch(`${issuer.issuerUrl}/.well-known/openid-configuration`)).json()) as { token_endpoint: string };
  return discovery.token_endpoint;
}

/** POST grant_type=client_credentials with HTTP Basic auth, as most OAuth2 clients do. */
async function requestToken(clientId: string, clientSecret: string): Promise<Response> {
  return fetch(await tokenEndpoint(), {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString("base64")}` },
    body: new URLSearchParams({ grant_type: "client_credentials", audience: AUDIENCE }),
  });
}

beforeAll(async () => {
  const [webPort, brokerPort, bookiePort] = [await freePort(), await freePort(), await freePort()];
  broker = new BrokerInstance({ home, webPort, brokerPort, bookiePort, tokenAuth: true, tokenSigning: "key-pair" });
  await broker.start();
  issuer = await startOAuth2Issuer({ privateKeyFile: broker.tokenPrivateKeyFile, tokenTtlSeconds: TTL });
});
afterAll(async () => {
  await issuer?.stop();
  await broker?.discard();
});

describe("a broker started with PULSAR_TOKEN_SIGNING=key-pair", () => {
  it("keeps an RSA private key (DER PKCS#8) and answers the admin token, refusing no token or an HS256 one", async () => {
    const key = createPrivateKey({ key: readFileSync(broker.tokenPrivateKeyFile), format: "der", type: "pkcs8" });
    expect(key.asymmetricKeyType).toBe("rsa");
    expect((await tenants(broker.adminToken())).status).toBe(200);
    expect((await tenants()).status).toBe(401);
    expect((await tenants(foreignToken())).status).toBe(401);
  });

  it("accepts an RS256 token from Pulsar's token tool", async () => {
    const token = await broker.createToken("alice");
    expect(claims(token)).toEqual([{ alg: "RS256" }, { sub: "alice" }]);
    expect((await tenants(token)).status).toBe(200);
  });
});

describe("the OAuth2 issuer signing with the broker's key", () => {
  it("issues a client_credentials token the broker accepts, for Apache's client too", async () => {
    const response = await requestToken(issuer.clientId, issuer.clientSecret);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { access_token: string; token_type: string; expires_in: number };
    expect(body).toMatchObject({ token_type: "Bearer", expires_in: TTL });
    const [header, payload] = claims(body.access_token) as [Record<string, unknown>, Record<string, number | string>];
    expect(header).toMatchObject({ alg: "RS256", kid: expect.any(String) });
    expect(payload).toMatchObject({ sub: issuer.clientId, aud: AUDIENCE, iss: issuer.issuerUrl });
    expect(Number(payload.exp) - Number(payload.iat)).toBe(TTL);
    expect(issuer.requests.at(-1)).toEqual({ clientId: issuer.clientId, audience: AUDIENCE, scope: undefined, granted: true });

    expect((await tenants(body.access_token)).status).toBe(200);
    const result = await apacheClient("roundtrip", { url: broker.serviceUrl, token: body.access_token, topic: topic("issued") }).result;
    expect(result.error).toBeUndefined();
    expect(result.received).toEqual(expected);
  });

  it.each([
    ["a wrong secret", () => [issuer.clientId, "not-the-secret"]],
    ["an unknown client", () => ["mallory", issuer.clientSecret]],
  ])("answers %s with 401 invalid_client and records it", async (_case, credentials) => {
    const [clientId, clientSecret] = credentials();
    const response = await requestToken(clientId!, clientSecret!);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: "invalid_client" });
    expect(issuer.requests.at(-1)).toEqual({ clientId, audience: AUDIENCE, scope: undefined, granted: false });
  });

  it("lets Apache's client authenticate itself with AuthenticationOauth2 and the key file", async () => {
    expect(JSON.parse(readFileSync(issuer.credentialsFile, "utf8"))).toEqual({
      type: "client_credentials",
      client_id: issuer.clientId,
      client_secret: issuer.clientSecret,
      issuer_url: issuer.issuerUrl,
    });
    const before = issuer.requests.length;
    const oauth2 = { issuerUrl: issuer.issuerUrl, credentialsFile: issuer.credentialsFile, audience: AUDIENCE };
    const result = await apacheClient("roundtrip", { url: broker.serviceUrl, oauth2, topic: topic("oauth2") }).result;
    expect(result.error).toBeUndefined();
    expect(result.received).toEqual(expected);
    // The C++ client sends its credentials as form fields (client_secret_post), not Basic auth.
    expect(issuer.requests.slice(before)).toContainEqual({
      clientId: issuer.clientId,
      audience: AUDIENCE,
      scope: undefined,
      granted: true,
    });
  });
});
