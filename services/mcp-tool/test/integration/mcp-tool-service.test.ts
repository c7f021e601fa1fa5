import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuthServer, CountingProxy, EverythingServer, closedPort, startAuthServer } from "../support/mcp-servers.js";
import { McpToolSystem } from "../support/system.js";

// The mcp-tool service as a process, on the real broker, with the real config service, calling real MCP
// servers: @modelcontextprotocol/server-everything and a tiny SDK server that wants a bearer token.
const TOKEN = "s3cret-token";
let everything: EverythingServer;
let proxy: CountingProxy;
let auth: AuthServer;
let deadUrl: string;
let system: McpToolSystem;

beforeAll(async () => {
  everything = await EverythingServer.start("streamableHttp");
  proxy = await CountingProxy.start(everything.port);
  auth = await startAuthServer(TOKEN);
  deadUrl = `http://127.0.0.1:${await closedPort()}/mcp`;
  system = await McpToolSystem.start({ MCP_TEST_TOKEN: TOKEN, MCP_CONNECT_TIMEOUT_MS: "3000", MCP_CALL_TIMEOUT_MS: "10000" });
  await system.putMcp({
    echo: { url: everything.url },
    sum: { url: everything.url, "remote-name": "get-sum" },
    weather: { url: everything.url, "remote-name": "get-structured-content" },
    "tiny-image": { url: everything.url, "remote-name": "get-tiny-image" },
    "counted-echo": { url: proxy.url(), "remote-name": "echo" },
    "counted-sum": { url: proxy.url(), "remote-name": "get-sum" },
    dead: { url: deadUrl, "remote-name": "echo" },
    "fail-without-token": { url: auth.url, "remote-name": "fail" },
    "fail-with-token": { url: auth.url, "remote-name": "fail", "auth-token": "${env:MCP_TEST_TOKEN}" },
    "tiny-echo": { url: auth.url, "remote-name": "echo", headers: { Authorization: "Bearer ${env:MCP_TEST_TOKEN}" } },
    "missing-secret": { url: auth.url, "remote-name": "echo", headers: { "X-Api-Key": "${env:MCP_TEST_UNSET_SECRET}" } },
    "no-such-remote": { url: everything.url, "remote-name": "does-not-exist" },
  });
});

afterAll(async () => {
  await system?.stop();
  await proxy?.close();
  await auth?.close();
  await everything?.stop();
});

/** After any failure: other servers are still served and the service is still ready. */
async function stillServing(): Promise<void> {
  expect(await system.call("echo", { message: "still here" })).toEqual({ error: null, text: "Echo: still here", object: null });
  expect(await system.readyStatus()).toBe(200);
}

describe("calls through Pulsar", () => {
  it("answers the seed-003 wire for a text tool", async () => {
    expect(await system.request({ name: "echo", parameters: '{"message": "hello"}' })).toEqual({
      error: null,
      text: "Echo: hello",
      object: null,
    });
    expect(await system.call("sum", { a: 2, b: 3 })).toEqual({ error: null, text: "The sum of 2 and 3 is 5.", object: null });
  });

  it("returns structuredContent as a JSON string in object", async () => {
    const reply = await system.call("weather", { location: "Chicago" });
    expect(reply).toMatchObject({ error: null, text: null });
    expect(JSON.parse(reply.object!)).toEqual({ temperature: 36, conditions: "Light rain / drizzle", humidity: 82 });
  });

  it("keeps the image of a multi-part result (text, image, text): the content array in object", async () => {
    const reply = await system.call("tiny-image");
    expect(reply).toMatchObject({ error: null, text: null });
    expect(JSON.parse(reply.object!)).toEqual([
      { type: "text", text: "Here's the image you requested:" },
      { type: "image", data: expect.stringMatching(/^iVBOR/), mimeType: "image/png" },
      { type: "text", text: "The image above is the MCP logo." },
    ]);
  });

  it("lists the server's tools with operation list-tools", async () => {
    const reply = await system.listTools("echo");
    expect(reply).toMatchObject({ error: null, text: null });
    const tools = JSON.parse(reply.object!) as Array<{ name: string; description: string; inputSchema: { properties?: object } }>;
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["echo", "get-sum", "get-structured-content", "get-tiny-image"]));
    expect(tools.find((t) => t.name === "echo")).toEqual({
      name: "echo",
      description: "Echoes back the input string",
      inputSchema: expect.objectContaining({ type: "object", properties: { message: expect.objectContaining({ type: "string" }) } }),
    });
  });
});

describe("session reuse", () => {
  it("opens exactly one session for 10 calls across two entries on one server (initialize count and metric)", async () => {
    const before = proxy.initializes;
    const first = await Promise.all(Array.from({ length: 5 }, (_, i) => system.call("counted-echo", { message: `m${i}` })));
    expect(first.map((r) => r.text)).toEqual(["Echo: m0", "Echo: m1", "Echo: m2", "Echo: m3", "Echo: m4"]);
    for (let i = 0; i < 5; i++) {
      const name = i % 2 === 0 ? "counted-sum" : "counted-echo";
      expect((await system.call(name, { a: i, b: 10, message: `s${i}` })).error).toBeNull();
    }
    expect(proxy.initializes - before).toBe(1);
    expect(proxy.posts).toBeGreaterThanOrEqual(12); // initialize, initialized, 10 tools/call
    expect(await system.metric("toolmesh_mcp_sessions_opened_total", { server: proxy.url() })).toBe(1);
    expect(await system.metric("toolmesh_mcp_sessions_open", { server: proxy.url(), transport: "streamable-http" })).toBe(1);
  });
});

describe("errors are clear, and the service keeps serving", () => {
  it("unknown name", async () => {
    expect(await system.call("nope", { message: "x" })).toEqual({
      error: { type: "mcp-tool-error", message: "no mcp tool 'nope' in config" },
      text: null,
      object: null,
    });
    expect((await system.listTools("nope")).error?.message).toBe("no mcp tool 'nope' in config");
    await stillServing();
  });

  it("server down names the url", async () => {
    const reply = await system.call("dead", { message: "x" });
    expect(reply.error).toEqual({
      type: "mcp-tool-error",
      message: `MCP server at ${deadUrl}: connect (streamable-http) failed: connection refused (ECONNREFUSED)`,
    });
    await stillServing();
  });

  it("a tool answering isError becomes an mcp-tool-error with its text", async () => {
    expect(await system.call("fail-with-token", { reason: "testing" })).toEqual({
      error: { type: "mcp-tool-error", message: "the tool failed on purpose: testing" },
      text: null,
      object: null,
    });
    await stillServing();
  });

  it("a server that wants a bearer token: 401 without auth-token, success with it or with an env header", async () => {
    const reply = await system.call("fail-without-token", { reason: "x" });
    expect(reply.error?.type).toBe("mcp-tool-error");
    expect(reply.error?.message).toMatch(
      new RegExp(`^MCP server at ${auth.url}: connect \\(streamable-http\\) failed: HTTP 401 Unauthorized`),
    );
    expect(reply.error?.message).toContain("auth-token");
    expect(await system.call("tiny-echo", { message: "hi" })).toEqual({ error: null, text: "tiny-echo: hi", object: null });
    await stillServing();
  });

  it("a header referencing an unset environment variable names it", async () => {
    const reply = await system.call("missing-secret", { message: "x" });
    expect(reply.error).toEqual({
      type: "mcp-tool-error",
      message:
        "mcp tool 'missing-secret' header 'X-Api-Key' uses ${env:MCP_TEST_UNSET_SECRET}, but environment variable MCP_TEST_UNSET_SECRET is not set for the mcp-tool service",
    });
    await stillServing();
  });

  it("bad parameters JSON is a bad-request", async () => {
    const reply = await system.request({ name: "echo", parameters: "{not json" });
    expect(reply.error?.type).toBe("bad-request");
    expect(reply.error?.message).toMatch(/^invalid message: parameters: not valid JSON/);
    await stillServing();
  });

  it("a remote tool the server does not have", async () => {
    const reply = await system.call("no-such-remote", {});
    expect(reply.error?.type).toBe("mcp-tool-error");
    expect(reply.error?.message).toMatch(
      new RegExp(
        `^MCP server at ${everything.url} has no tool 'does-not-exist' \\(mcp tool 'no-such-remote'\\); it offers: echo, .*get-sum`,
      ),
    );
    await stillServing();
  });

  it("arguments the remote tool rejects come back as its error", async () => {
    const reply = await system.call("sum", { a: "two" });
    expect(reply.error?.type).toBe("mcp-tool-error");
    expect(reply.error?.message).toMatch(/Input validation error: Invalid arguments for tool get-sum/);
    await stillServing();
  });
});
