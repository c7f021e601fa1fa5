import { createPrivateKey, generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OAuth2Issuer, freePort, runPythonScript, startOAuth2Issuer } from "@toolmesh/test-support";
import { ECHO_TOOL, JOKE_TOOLS, McpSystem } from "../support/system.js";

// mcp-server as an OAuth 2 protected resource (the MCP authorization spec): its metadata names an
// authorization server (oauth2-mock-server here), and it takes that server's JWT access tokens, issued for
// its own URL, with scope mcp:tools. The client is the Python MCP SDK's ClientCredentialsOAuthProvider.
const here = dirname(fileURLToPath(import.meta.url));
/** The key id test-support's issuer publishes its key under. */
const ISSUER_KEY_ID = "pulsar-broker-key";
const keyDir = mkdtempSync(join(tmpdir(), "mcp-server-oauth-"));
const system = new McpSystem();
let issuer: OAuth2Issuer;
let resource: string;

/** A token straight from the issuer's token endpoint, for whatever resource and scope a case needs. */
async function tokenFor(fields: Record<string, string>, from: OAuth2Issuer = issuer): Promise<string> {
  const response = await fetch(from.tokenEndpoint, {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from(`${from.clientId}:${from.clientSecret}`).toString("base64")}` },
    body: new URLSearchParams({ grant_type: "client_credentials", ...fields }),
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

const keyFile = (name: string) => {
  const file = join(keyDir, name);
  writeFileSync(file, generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "der", type: "pkcs8" }));
  return file;
};

beforeAll(async () => {
  issuer = await startOAuth2Issuer({});
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  await system.start({
    HTTP_PORT: String(port),
    MCP_AUTHORIZATION_SERVERS: issuer.issuerUrl,
    MCP_RESOURCE_URL: resource,
    MCP_REQUIRED_SCOPES: "mcp:tools",
  });
}, 180_000);

afterAll(async () => {
  await system.stop();
  await issuer?.stop();
  rmSync(keyDir, { recursive: true, force: true });
});

const pythonClient = (scope: string) =>
  runPythonScript<{ tools?: string[]; error?: string }>("mcp", join(here, "../support/python_mcp_oauth_client.py"), [
    resource,
    issuer.issuerUrl,
    issuer.clientId,
    issuer.clientSecret,
    scope,
  ]).result;

const listTools = (token: string) =>
  fetch(resource, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    }),
  });

describe("an OAuth 2 client (the Python MCP SDK, client credentials)", () => {
  it("finds the authorization server through the metadata, gets a token for this server and lists the tools", async () => {
    const result = await pythonClient("mcp:tools");
    expect(result).toEqual({ tools: [...JOKE_TOOLS, ECHO_TOOL].sort() });
    expect(issuer.requests.filter((r) => r.granted)).toContainEqual(
      expect.objectContaining({ clientId: issuer.clientId, resource, scope: "mcp:tools", granted: true }),
    );
  });

  it("asks for the scope the server names (its 401 and metadata say mcp:tools), and a token without it gets 403", async () => {
    // The SDK asks for what the server names, not what it was configured with: this client still gets in.
    expect((await pythonClient("mcp:other")).tools).toHaveLength(4);
    const response = await listTools(await tokenFor({ resource, scope: "mcp:other" }));
    expect(response.status).toBe(403);
    expect(response.headers.get("www-authenticate")).toMatch(/error="insufficient_scope", scope="mcp:tools", resource_metadata="/);
  });
});

describe("tokens the server refuses (401 invalid_token, with the reason)", () => {
  it.each([
    ["issued for another server", async () => tokenFor({ resource: "https://elsewhere.example/mcp", scope: "mcp:tools" }), /aud claim/],
    ["expired", async () => expiredToken(), /expired/],
    ["signed with a key the issuer does not publish", async () => forgedToken(), /signature/],
    ["from an issuer not configured", async () => otherIssuerToken(), /does not trust/],
    ["not a JWT", async () => "opaque-token-value-0123456789", /not a JWT/],
  ])("a token %s", async (_case, token, reason) => {
    const response = await listTools(await token());
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/error="invalid_token"/);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(reason);
  });
});

/** A JWT signed here with `keyFile`'s key under the issuer's key id: what a forger (or the issuer itself) could make. */
async function signed(file: string, claims: { iss?: string; aud?: string; scope?: string; exp?: number }): Promise<string> {
  const key = createPrivateKey({ key: readFileSync(file), format: "der", type: "pkcs8" });
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: claims.scope ?? "mcp:tools" })
    .setProtectedHeader({ alg: "RS256", kid: ISSUER_KEY_ID })
    .setIssuer(claims.iss ?? issuer.issuerUrl)
    .setAudience(claims.aud ?? resource)
    .setIssuedAt(now - 60)
    .setExpirationTime(claims.exp ?? now + 60)
    .sign(key);
}

const expiredToken = () => signed(issuer.privateKeyFile, { exp: Math.floor(Date.now() / 1000) - 10 });
const forgedToken = () => signed(keyFile("forger.key"), {});
const otherIssuerToken = () => signed(issuer.privateKeyFile, { iss: "https://other-issuer.example" });
