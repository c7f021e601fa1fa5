import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OAuth2Issuer, PythonMcpServer, startOAuth2Issuer } from "@toolmesh/test-support";
import { McpToolSystem } from "../support/system.js";

// An MCP server protected as the MCP authorization spec has it (Python MCP SDK 2.3: protected-resource
// metadata naming an OAuth 2 issuer, RS256 JWTs for its own URL with scope mcp:tools), and mcp-tool reaching
// it with an `mcp` entry's `oauth2` client credentials: the TypeScript SDK finds the issuer, gets a token
// with the client_credentials grant, and calls. The issuer is oauth2-mock-server (test-support).
let issuer: OAuth2Issuer;
let server: PythonMcpServer;
let system: McpToolSystem;

beforeAll(async () => {
  issuer = await startOAuth2Issuer({});
  server = await PythonMcpServer.start({ oauth: { issuer: issuer.issuerUrl } });
  system = await McpToolSystem.start({ MCP_OAUTH_SECRET: issuer.clientSecret });
  const oauth2 = { "client-id": issuer.clientId, "client-secret": "${env:MCP_OAUTH_SECRET}", scope: "mcp:tools", issuer: issuer.issuerUrl };
  const entry = (extra: Record<string, unknown>) => ({ url: server.url, "remote-name": "echo", ...extra });
  await system.putMcp({
    "py-oauth": entry({ oauth2 }),
    "py-oauth-wrong-secret": entry({ oauth2: { ...oauth2, "client-secret": "not-the-secret" } }),
    "py-oauth-other-scope": entry({ oauth2: { ...oauth2, scope: "mcp:other" } }),
    "py-oauth-other-issuer": entry({ oauth2: { ...oauth2, issuer: "https://auth.example.com" } }),
    "py-oauth-no-credentials": entry({}),
  });
}, 120_000);

afterAll(async () => {
  await system?.stop();
  await server?.stop();
  await issuer?.stop();
});

describe("an MCP server that wants OAuth 2 (client credentials)", () => {
  it("is called with a token the entry's credentials got, for that server and scope", async () => {
    expect(await system.call("py-oauth", { message: "hi" })).toEqual({ error: null, text: "py-echo: hi", object: null });
    expect(await system.call("py-oauth", { message: "again" })).toEqual({ error: null, text: "py-echo: again", object: null });
    const granted = issuer.requests.filter((r) => r.granted);
    // One token for the session, asked for this server (RFC 8707 resource) and the entry's scope.
    expect(granted).toEqual([{ clientId: issuer.clientId, audience: undefined, resource: server.url, scope: "mcp:tools", granted: true }]);
  });

  it.each([
    ["a wrong secret", "py-oauth-wrong-secret", /invalid_client/],
    ["a scope the server does not accept", "py-oauth-other-scope", /HTTP 403/],
    ["credentials for another issuer than the server names", "py-oauth-other-issuer", /auth\.example\.com/],
    ["no credentials", "py-oauth-no-credentials", /HTTP 401 Unauthorized: the server wants credentials/],
  ])("is refused with a reason a person can act on for %s", async (_case, tool, reason) => {
    const reply = await system.call(tool, { message: "x" });
    console.log(`${tool}:`, reply.error?.message);
    expect(reply.error?.type).toBe("mcp-tool-error");
    expect(reply.error?.message).toMatch(reason);
    expect(reply.error?.message).not.toContain("not-the-secret");
  });
});
