import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PythonMcpServer, waitFor } from "@toolmesh/test-support";
import { CountingProxy } from "../support/mcp-servers.js";
import { McpToolSystem } from "../support/system.js";

// Sessions with MCP servers built with the Python MCP SDK 2.3 (a peer other than the SDK toolmesh uses),
// through the real broker and the real config service: timeouts, restarts and session limits.
const CALL_TIMEOUT_MS = 6_000;
let system: McpToolSystem;

beforeAll(async () => {
  system = await McpToolSystem.start({ MCP_CALL_TIMEOUT_MS: String(CALL_TIMEOUT_MS), MCP_CONNECT_TIMEOUT_MS: "4000" });
});

afterAll(async () => {
  await system?.stop();
});

describe("a timeout is the call's problem (issue 12 item 8)", () => {
  let server: PythonMcpServer;
  beforeAll(async () => {
    server = await PythonMcpServer.start();
    await system.putMcp({ "timeouts-gate": { url: server.url, "remote-name": "gate" } });
  });
  afterAll(() => server?.stop());

  it("one call timing out leaves the shared session and the 5 calls in flight beside it alone", async () => {
    const victim = system.call("timeouts-gate", { name: "never" });
    await server.waitForGate("never", 1);
    // Half the budget later, so that these are still in flight when the victim's time is up.
    await sleep(CALL_TIMEOUT_MS / 2);
    const others = Array.from({ length: 5 }, () => system.call("timeouts-gate", { name: "later" }));
    await server.waitForGate("later", 5);

    const timedOut = await victim;
    await server.release("later");
    expect((await Promise.all(others)).map((reply) => reply.error ?? reply.text)).toEqual(Array(5).fill("passed gate later"));
    expect(timedOut).toEqual({
      error: {
        type: "mcp-tool-error",
        message: `MCP server at ${server.url} did not answer tools/call 'gate' within ${CALL_TIMEOUT_MS} ms`,
      },
      text: null,
      object: null,
    });
    const stats = await server.stats();
    expect(stats.initializes).toBe(1);
    expect(stats.open_sessions).toBe(1);
    // The timed-out call was cancelled on the server (notifications/cancelled), not left waiting.
    expect(stats.waiting.never ?? 0).toBe(0);
  });
});

describe("after the server restarts (issue 12 item 9)", () => {
  let server: PythonMcpServer;
  beforeAll(async () => {
    server = await PythonMcpServer.start();
    await system.putMcp({
      "restart-plain": { url: server.url, "remote-name": "plain" },
      "restart-gate": { url: server.url, "remote-name": "gate" },
    });
  });
  afterAll(() => server?.stop());

  it("20 concurrent calls all succeed, served by one re-initialize", async () => {
    expect(await system.call("restart-plain", { message: "before" })).toEqual({ error: null, text: "plain: before", object: null });
    const opened = await system.metric("toolmesh_mcp_sessions_opened_total", { server: server.url });
    await server.restart();

    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => system.call("restart-plain", { message: `m${i}` })));
    expect(replies.map((reply) => reply.error ?? reply.text)).toEqual(Array.from({ length: 20 }, (_, i) => `plain: m${i}`));
    const stats = await server.stats();
    expect(stats.initializes).toBe(1);
    expect(stats.calls.filter((name) => name === "plain")).toHaveLength(20);
    expect(await system.metric("toolmesh_mcp_sessions_opened_total", { server: server.url })).toBe(opened + 1);
    // Calls that reached the old session were refused (404) before running and retried once on the new one.
    expect(await system.metric("toolmesh_mcp_calls_retried_total", { server: server.url })).toBeGreaterThanOrEqual(1);
  });

  it("a call in flight when the server dies is answered with an error and never sent again", async () => {
    const victim = system.call("restart-gate", { name: "crash" });
    await server.waitForGate("crash", 1);
    await server.restart();
    const reply = await victim;
    expect(reply.error?.message).toBe(`MCP server at ${server.url} did not answer tools/call 'gate' within ${CALL_TIMEOUT_MS} ms`);
    // The restarted server saw no second attempt: the call may have run, so it is not retried.
    expect((await server.stats()).calls).not.toContain("gate");
    expect((await system.call("restart-plain", { message: "after" })).text).toBe("plain: after");
  });
});

describe("dropped sessions are ended on the server (issue 12 item 10)", () => {
  let server: PythonMcpServer;
  let flaky: CountingProxy;
  beforeAll(async () => {
    server = await PythonMcpServer.start({ maxSessions: 2 });
    flaky = await CountingProxy.start(server.port);
    await system.putMcp({ "limited-echo": { url: flaky.url(), "remote-name": "echo" } });
  });
  afterAll(async () => {
    await flaky?.close();
    await server?.stop();
  });

  it("5 sessions lost to cut connections do not fill a 2-session limit: each is DELETEd", async () => {
    for (let i = 0; i < 5; i++) {
      flaky.resetToolCalls = 1;
      const reply = await system.call("limited-echo", { message: `cut ${i}` });
      expect(reply.error?.message).toBe(
        `MCP server at ${flaky.url()}: tools/call 'echo' failed: the server closed the connection (UND_ERR_SOCKET)`,
      );
      await waitFor(async () => (await server.stats()).deletes === i + 1, { description: `DELETE of dropped session ${i + 1}` });
    }
    expect(await system.call("limited-echo", { message: "still served" })).toEqual({
      error: null,
      text: "py-echo: still served",
      object: null,
    });
    const stats = await server.stats();
    expect(stats).toMatchObject({ initializes: 6, deletes: 5, open_sessions: 1 });
    expect(flaky.deletes).toBe(5);
  });
});
