import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PulsarClient } from "@toolmesh/pulsar";
import { ServiceProcess, clientOptions, requestTopic, testTopics, useBroker } from "@toolmesh/test-support";
import { ECHO_TOOL, JOKE_TOOLS, McpSystem, TOKEN } from "../support/system.js";

const system = new McpSystem();
let client: Client;
let revision = 0;
const PUN_CATS = "Here's a pun: my cat is a great DJ, he always brings the mewsic.";
const SECRET = "secret-argument-value-4711";

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "raw-http", version: "1" } },
};

/** A raw POST, as a broken or hostile client would send it. */
async function post(path: string, body: string, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) {
  const response = await fetch(new URL(path, system.mcpUrl), {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body,
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    json: () => JSON.parse(text) as { error: { code?: number; message: string; type?: string } },
  };
}

const textOf = (result: Awaited<ReturnType<Client["callTool"]>>) =>
  (result.content as Array<{ type: string; text: string }>).map((c) => c.text).join("\n");

beforeAll(async () => {
  await system.start({ MCP_CALL_TIMEOUT_MS: "4000" });
  revision = await system.waitForTools([...JOKE_TOOLS, ECHO_TOOL]);
  client = new Client({ name: "bad-input-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(system.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
  );
}, 180_000);
afterAll(async () => {
  await client?.close().catch(() => undefined);
  await system.stop();
});

describe("bad input gets a clear answer, and the server keeps serving", () => {
  it("an unknown tool: a protocol error naming the tool and the revision", async () => {
    await expect(client.callTool({ name: "no-such-tool", arguments: {} })).rejects.toThrow(
      `MCP error -32602: unknown tool 'no-such-tool': catalog revision ${revision} has no such tool (tools/list shows what it offers)`,
    );
  });

  it("arguments failing the schema: an isError result saying what is wrong", async () => {
    const missing = await client.callTool({ name: "tell-pun", arguments: {} });
    const wrongType = await client.callTool({ name: "tell-pun", arguments: { topic: 42, extra: SECRET } });
    console.log("invalid arguments:", textOf(missing), "|", textOf(wrongType).slice(0, 120));
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/^invalid arguments for tell-pun: \(arguments\) must have required property 'topic'/);
    expect(wrongType.isError).toBe(true);
    expect(textOf(wrongType)).toContain("/topic must be string");
    expect(textOf(wrongType)).toContain("must NOT have additional properties");
  });

  it("a tool service that is down: an isError result naming the tool and the topic, before the call timeout; one that never answers: a timeout", async () => {
    const jokes = system.processes.get("joke-service")!;
    await jokes.stop();
    const started = Date.now();
    const result = await client.callTool({ name: "tell-pun", arguments: { topic: "cats" } });
    console.log(`tool service down, answered after ${Date.now() - started} ms (MCP_CALL_TIMEOUT_MS 4000):`, textOf(result));
    expect(result.isError).toBe(true);
    // Not a timeout: after REQUEST_SERVICE_CHECK_MS (2 s) the broker is asked, and lists neither a consumer of
    // the request topic nor a producer on the response topic.
    expect(textOf(result)).toMatch(
      /^tool tell-pun is unavailable: its service is not running \(nothing consumes non-persistent:\/\/[^/]+\/request\/joke, nothing publishes on non-persistent:\/\/[^/]+\/response\/joke\)$/,
    );

    // A consumer that takes the call and never answers: the service runs, so the call waits out its timeout.
    const pulsar = new PulsarClient(clientOptions(await useBroker()));
    const silent = await pulsar.subscribe(
      { topic: requestTopic("joke"), subscription: "silent-joke", type: "Shared" },
      async () => undefined,
    );
    try {
      const slow = await client.callTool({ name: "tell-pun", arguments: { topic: "cats" } });
      expect(slow.isError).toBe(true);
      expect(textOf(slow)).toMatch(
        /^tool tell-pun timed out: no answer from non-persistent:\/\/[^/]+\/request\/joke within 4000 ms \(is it running\?\)$/,
      );
    } finally {
      await silent.close();
      await pulsar.close();
    }
    await jokes.restart();
    const again = await client.callTool({ name: "tell-pun", arguments: { topic: "cats" } });
    expect(textOf(again)).toBe(PUN_CATS);
  });

  it("a missing or wrong token: 401 with WWW-Authenticate", async () => {
    const missing = await post("/mcp", JSON.stringify(initialize), {});
    const wrong = await post("/mcp", JSON.stringify(initialize), { authorization: "Bearer not-the-token" });
    console.log(
      "no token:",
      missing.status,
      missing.headers.get("www-authenticate"),
      missing.text,
      "| wrong token:",
      wrong.status,
      wrong.headers.get("www-authenticate"),
    );
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toBe('Bearer realm="toolmesh"');
    expect(missing.json().error).toEqual({ type: "unauthorized", message: "missing bearer token: send 'Authorization: Bearer <token>'" });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toBe('Bearer realm="toolmesh", error="invalid_token"');
    const sdk = new Client({ name: "wrong-token", version: "1" });
    await expect(
      sdk.connect(
        new StreamableHTTPClientTransport(new URL(system.mcpUrl), { requestInit: { headers: { authorization: "Bearer nope" } } }),
      ),
    ).rejects.toThrow(/401|nauthorized/);
  });

  it("with an authorization server configured: the 401 names the protected-resource metadata (RFC 9728)", async () => {
    const oauth = await ServiceProcess.start({
      service: "mcp-server",
      env: {
        PULSAR_WEB_URL: system.webServiceUrl,
        GATEWAY_TOKEN: TOKEN,
        MCP_AUTHORIZATION_SERVERS: "https://auth.example.com",
        MCP_RESOURCE_URL: "https://tools.example.com/mcp",
      },
    });
    try {
      const response = await fetch(`${oauth.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(initialize),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe(
        'Bearer realm="toolmesh", resource_metadata="https://tools.example.com/.well-known/oauth-protected-resource/mcp"',
      );
      for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
        const metadata = await fetch(`${oauth.url}${path}`);
        expect(metadata.status).toBe(200);
        expect(await metadata.json()).toEqual({
          resource: "https://tools.example.com/mcp",
          authorization_servers: ["https://auth.example.com"],
          bearer_methods_supported: ["header"],
          resource_name: "toolmesh MCP server",
        });
      }
      expect((await fetch(`${system.processes.get("mcp-server")!.url}/.well-known/oauth-protected-resource`)).status).toBe(404);
      expect(await oauth.stop()).toBe(0);
    } finally {
      await oauth.stop();
    }
  });

  it("a malformed body: a parse error for non-JSON, invalid request for non-JSON-RPC, and initialize required first", async () => {
    const notJson = await post("/mcp", "{not json");
    expect(notJson.status).toBe(400);
    expect(notJson.json().error).toMatchObject({ code: -32700, message: expect.stringMatching(/^parse error: the body is not JSON/) });
    const notInitialize = await post("/mcp", JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" }));
    expect(notInitialize.status).toBe(400);
    expect(notInitialize.json()).toMatchObject({
      id: 7,
      error: { code: -32600, message: "no Mcp-Session-Id header: the first request of a session must be initialize" },
    });
    const session = (client.transport as StreamableHTTPClientTransport).sessionId!;
    const headers = { authorization: `Bearer ${TOKEN}`, "mcp-session-id": session, "mcp-protocol-version": LATEST_PROTOCOL_VERSION };
    const notRpc = await post("/mcp", JSON.stringify({ hello: "world" }), headers);
    console.log("not JSON:", notJson.text, "| not JSON-RPC in a session:", notRpc.status, notRpc.text);
    expect(notRpc.status).toBe(400);
    expect(notRpc.json().error).toMatchObject({ code: -32600, message: `invalid request: 'jsonrpc' must be "2.0"` });
    const unknownSession = await post("/mcp", JSON.stringify({ jsonrpc: "2.0", id: 8, method: "tools/list" }), {
      ...headers,
      "mcp-session-id": "00000000-0000-0000-0000-000000000000",
    });
    expect(unknownSession.status).toBe(404);
    // JSON-RPC 2.0: the error answers the request by its id (null only when the id could not be read).
    expect(unknownSession.json()).toEqual({
      jsonrpc: "2.0",
      id: 8,
      error: {
        code: -32001,
        message: "session '00000000-0000-0000-0000-000000000000' not found (closed, expired, or opened at another URL): initialize again",
        data: { type: "not-found" },
      },
    });
  });

  it("an older protocol version is negotiated; an unknown one gets the newest; a foreign browser origin is refused", async () => {
    const versionFor = async (asked: string) => {
      const reply = await post("/mcp", JSON.stringify({ ...initialize, params: { ...initialize.params, protocolVersion: asked } }));
      const data = /^data: (.*)$/m.exec(reply.text)?.[1];
      return (JSON.parse(data ?? "{}") as { result?: { protocolVersion?: string } }).result?.protocolVersion;
    };
    expect(await versionFor("2025-03-26")).toBe("2025-03-26");
    expect(await versionFor("2024-11-05")).toBe("2024-11-05");
    expect(await versionFor("1999-01-01")).toBe(LATEST_PROTOCOL_VERSION);
    const foreign = await post("/mcp", JSON.stringify(initialize), {
      authorization: `Bearer ${TOKEN}`,
      origin: "https://evil.example.com",
    });
    expect(foreign.status).toBe(403);
    expect(foreign.json().error.message).toBe("origin 'https://evil.example.com' may not call this MCP server (MCP_ALLOWED_ORIGINS)");
  });

  it("a revision that does not exist: 404 with a message naming it (raw and through the SDK)", async () => {
    const raw = await post("/mcp?revision=999", JSON.stringify(initialize));
    console.log("unknown revision:", raw.status, raw.text);
    expect(raw.status).toBe(404);
    expect(raw.json()).toMatchObject({
      id: 1,
      error: {
        code: -32602,
        message: `unknown catalog revision 999: no catalog revision 999 (the newest is ${revision}; omit ?revision= for it)`,
      },
    });
    const sdk = new Client({ name: "unknown-revision", version: "1" });
    await expect(
      sdk.connect(
        new StreamableHTTPClientTransport(new URL("/mcp?revision=999", system.mcpUrl), {
          requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
        }),
      ),
    ).rejects.toThrow("unknown catalog revision 999");
    const garbage = await post("/mcp?revision=abc", JSON.stringify(initialize));
    expect(garbage.status).toBe(400);
    expect(garbage.json().error.message).toBe("revision must be 'latest' or a revision number, not 'abc'");
  });

  it("after all that it still serves, counts calls per tool, and logs each call without its arguments", async () => {
    const result = await client.callTool({ name: "tell-pun", arguments: { topic: "cats" } });
    expect(textOf(result)).toBe(PUN_CATS);
    const metrics = await (await fetch(`${system.processes.get("mcp-server")!.url}/metrics`)).text();
    const line = (tool: string, outcome: string) =>
      metrics
        .split("\n")
        .find((l) => l.startsWith("toolmesh_mcp_tool_calls_total") && l.includes(`tool="${tool}"`) && l.includes(`outcome="${outcome}"`));
    console.log(
      [
        line("tell-pun", "ok"),
        line("tell-pun", "invalid-arguments"),
        line("tell-pun", "not-running"),
        line("(unknown)", "unknown-tool"),
      ].join("\n"),
    );
    expect(line("tell-pun", "ok")).toMatch(/ 2$/);
    expect(line("tell-pun", "invalid-arguments")).toMatch(/ 2$/);
    expect(line("tell-pun", "not-running")).toMatch(/ 1$/);
    expect(line("tell-pun", "timeout")).toMatch(/ 1$/);
    expect(line("(unknown)", "unknown-tool")).toMatch(/ 1$/);
    expect(metrics).toMatch(/toolmesh_mcp_tool_call_duration_seconds_count\{[^}]*tool="tell-pun"[^}]*\} 6/);
    // The service writes its log line as the call ends; the line reaches this test's pipe a moment later.
    const server = system.processes.get("mcp-server")!;
    const callLines = () =>
      server.logs
        .split("\n")
        .filter((l) => l.includes('"msg":"tools/call"'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    await expect.poll(() => callLines().length).toBe(7);
    const calls = callLines();
    const logs = server.logs;
    expect(calls.at(-1)).toMatchObject({
      session: (client.transport as StreamableHTTPClientTransport).sessionId,
      revision,
      tool: "tell-pun",
      outcome: "ok",
    });
    expect(logs).toMatch(/"status":404,"type":"not-found","reason":"unknown catalog revision 999[^"]*","msg":"refused an MCP request"/);
    expect(logs).not.toContain(SECRET);
    expect(logs).not.toContain('"cats"');
  });

  it("a peer's tool schema with a catastrophic pattern: checked in linear time, refused at once, the server keeps answering", async () => {
    // What any service may announce: a joke-service tool whose `topic` must match `^(a+)+$`, which a
    // backtracking engine takes hours to reject for 40 a's and a '!'.
    const manifest = (await (await fetch(`${system.processes.get("joke-service")!.url}/tools/manifest`)).json()) as Array<{
      name: string;
      parameters_schema: Record<string, unknown>;
    }>;
    const pun = manifest.find((t) => t.name === "tell-pun")!;
    const evil = {
      ...pun,
      tool_id: "peer.evil-pun",
      name: "evil-pun",
      parameters_schema: { type: "object", properties: { topic: { type: "string", pattern: "^(a+)+$" } }, required: ["topic"] },
    };
    const announcement = { service_id: "evil-peer", manifest: [evil], announced_at: new Date().toISOString() };
    await system.pulsar.send(testTopics().toolAnnouncements, Buffer.from(JSON.stringify(announcement)), {});
    await system.registry.request({ operation: "refresh" });
    await system.waitForTools(["evil-pun"]);

    const peer = new Client({ name: "redos-test", version: "1.0.0" });
    await peer.connect(
      new StreamableHTTPClientTransport(new URL(system.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
    );
    try {
      const refused = await peer.callTool({ name: "evil-pun", arguments: { topic: `${"a".repeat(40)}!` } });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/^invalid arguments for evil-pun: \/topic must match pattern "\^\(a\+\)\+\$"/);
      const accepted = await peer.callTool({ name: "evil-pun", arguments: { topic: "aaaa" } });
      expect(accepted.isError ?? false).toBe(false);
      expect((await fetch(`${system.processes.get("mcp-server")!.url}/healthz`)).status).toBe(200);
    } finally {
      await peer.close();
    }
  });

  it("stops gracefully on SIGTERM (exit 0) while sessions and their streams are open", async () => {
    const server = system.processes.get("mcp-server")!;
    expect(server.logs).toContain('"msg":"session opened"');
    expect(await server.stop()).toBe(0);
    expect(server.logs).toContain('"msg":"stopped"');
  });
});
