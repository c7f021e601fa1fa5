import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "@toolmesh/test-support";
import { type AuthServer, CountingProxy, EverythingServer, startAuthServer } from "../support/mcp-servers.js";
import { McpToolSystem } from "../support/system.js";

// Config changes while the service runs, the SSE fallback, a server that restarts, and shutdown.
const TOKEN = "live-token";
let everything: EverythingServer;
let legacy: EverythingServer;
let proxy: CountingProxy;
let auth: AuthServer;
let system: McpToolSystem;

beforeAll(async () => {
  [everything, legacy] = await Promise.all([EverythingServer.start("streamableHttp"), EverythingServer.start("sse")]);
  proxy = await CountingProxy.start(everything.port);
  auth = await startAuthServer(TOKEN);
  system = await McpToolSystem.start({ MCP_CONNECT_TIMEOUT_MS: "3000", MCP_CALL_TIMEOUT_MS: "10000" });
});

afterAll(async () => {
  await system?.stop();
  await proxy?.close();
  await auth?.close();
  await Promise.all([everything?.stop(), legacy?.stop()]);
});

describe("live config", () => {
  it("sends the next call to the new url after an entry's url changes, and closes the old session", async () => {
    await system.putMcp({ switchable: { url: proxy.url(), "remote-name": "echo" } });
    expect(await system.call("switchable", { message: "one" })).toEqual({ error: null, text: "Echo: one", object: null });
    expect(await system.metric("toolmesh_mcp_sessions_open", { server: proxy.url() })).toBe(1);
    const deletes = proxy.deletes;

    await system.putMcp({ switchable: { url: auth.url, "remote-name": "echo", "auth-token": TOKEN } });
    expect(await system.call("switchable", { message: "two" })).toEqual({ error: null, text: "tiny-echo: two", object: null });
    // The old server's session was ended (DELETE) because no entry points there any more.
    await waitFor(() => proxy.deletes === deletes + 1, { description: "the old session's DELETE" });
    expect(await system.metric("toolmesh_mcp_sessions_open", { server: proxy.url() })).toBe(0);
  });

  it("uses a changed auth-token from the next call on", async () => {
    await system.putMcp({ guarded: { url: auth.url, "remote-name": "echo", "auth-token": "wrong-token" } });
    expect((await system.call("guarded", { message: "x" })).error?.message).toContain("HTTP 401 Unauthorized");
    await system.putMcp({ guarded: { url: auth.url, "remote-name": "echo", "auth-token": TOKEN } });
    expect(await system.call("guarded", { message: "now" })).toEqual({ error: null, text: "tiny-echo: now", object: null });
  });

  it("answers 'no mcp tool' once an entry is deleted", async () => {
    await system.putMcp({ doomed: { url: everything.url, "remote-name": "echo" } });
    expect((await system.call("doomed", { message: "x" })).text).toBe("Echo: x");
    await system.deleteMcp("doomed");
    expect((await system.call("doomed", { message: "x" })).error).toEqual({
      type: "mcp-tool-error",
      message: "no mcp tool 'doomed' in config",
    });
  });
});

describe("transports", () => {
  it("falls back to SSE for server-everything in sse mode (transport auto)", async () => {
    await system.putMcp({
      "legacy-echo": { url: legacy.url, "remote-name": "echo" },
      "legacy-strict": { url: legacy.url, "remote-name": "echo", transport: "streamable-http" },
      "legacy-sse": { url: legacy.url, "remote-name": "get-sum", transport: "sse" },
    });
    expect(await system.call("legacy-echo", { message: "over sse" })).toEqual({ error: null, text: "Echo: over sse", object: null });
    expect(await system.call("legacy-sse", { a: 1, b: 2 })).toEqual({ error: null, text: "The sum of 1 and 2 is 3.", object: null });
    expect(await system.metric("toolmesh_mcp_sessions_open", { server: legacy.url, transport: "sse" })).toBe(2);
    const strict = await system.call("legacy-strict", { message: "x" });
    expect(strict.error?.message).toMatch(new RegExp(`^MCP server at ${legacy.url}: connect \\(streamable-http\\) failed: HTTP 404`));
  });

  it("reports a server that went away, and uses it again once it is back", async () => {
    const server = await EverythingServer.start("streamableHttp");
    try {
      await system.putMcp({ flaky: { url: server.url, "remote-name": "echo" } });
      expect((await system.call("flaky", { message: "a" })).text).toBe("Echo: a");
      await server.kill();
      const down = await system.call("flaky", { message: "b" });
      expect(down.error?.type).toBe("mcp-tool-error");
      expect(down.error?.message).toMatch(new RegExp(`^MCP server at ${server.url}: `));
      expect(await system.call("legacy-echo", { message: "others fine" })).toMatchObject({ text: "Echo: others fine" });
      await server.spawn();
      expect((await system.call("flaky", { message: "c" })).text).toBe("Echo: c");
    } finally {
      await server.stop();
    }
  });
});

describe("shutdown", () => {
  it("ends open sessions on SIGTERM and exits 0", async () => {
    await system.putMcp({ "last-call": { url: proxy.url(), "remote-name": "echo" } });
    expect((await system.call("last-call", { message: "bye" })).text).toBe("Echo: bye");
    const deletes = proxy.deletes;
    expect(await system.mcpTool.stop()).toBe(0);
    expect(proxy.deletes).toBe(deletes + 1);
  });
});
