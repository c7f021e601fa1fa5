import pino from "pino";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpDescriptor } from "@toolmesh/schema";
import { SessionMetrics } from "../../src/metrics.js";
import { resolveServer } from "../../src/server-config.js";
import { McpSessionPool } from "../../src/sessions.js";
import { CountingProxy, EverythingServer, closedPort, startBlackHole } from "../support/mcp-servers.js";

// The pool in-process against real MCP servers (no broker): sessions, reuse, fallback, failure handling.
let everything: EverythingServer;
let legacy: EverythingServer;
let proxy: CountingProxy;
const registry = new Registry();
const pools: McpSessionPool[] = [];

const newPool = (overrides: Partial<ConstructorParameters<typeof McpSessionPool>[0]> = {}) => {
  const pool = new McpSessionPool({
    connectTimeoutMs: 5_000,
    callTimeoutMs: 10_000,
    logger: pino({ level: process.env.POOL_LOG ?? "silent" }),
    ...overrides,
  });
  pools.push(pool);
  return pool;
};
const target = (url: string, extra: Record<string, unknown> = {}) => resolveServer("t", McpDescriptor.parse({ url, ...extra }), {});

beforeAll(async () => {
  [everything, legacy] = await Promise.all([EverythingServer.start("streamableHttp"), EverythingServer.start("sse")]);
  proxy = await CountingProxy.start(everything.port);
});

afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
  await proxy?.close();
  await Promise.all([everything?.stop(), legacy?.stop()]);
});

describe("McpSessionPool against server-everything", () => {
  it("opens one session for many concurrent and sequential calls, and counts it", async () => {
    const metrics = new SessionMetrics(registry);
    const pool = newPool({ metrics });
    const server = target(proxy.url());
    const before = proxy.initializes;
    const concurrent = await Promise.all(Array.from({ length: 5 }, (_, i) => pool.callTool(server, "echo", { message: `c${i}` })));
    expect(concurrent.map((r) => r.content?.[0]?.text)).toEqual(["Echo: c0", "Echo: c1", "Echo: c2", "Echo: c3", "Echo: c4"]);
    for (let i = 0; i < 5; i++) await pool.callTool(server, "get-sum", { a: i, b: 1 });
    expect(proxy.initializes - before).toBe(1);
    const opened = (await registry.getSingleMetric("toolmesh_mcp_sessions_opened_total")!.get()).values;
    expect(opened).toEqual([expect.objectContaining({ labels: { server: proxy.url() }, value: 1 })]);
  });

  it("lists the server's tools", async () => {
    const tools = await newPool().listTools(target(everything.url));
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["echo", "get-sum", "get-structured-content", "get-tiny-image"]));
    expect(tools.find((t) => t.name === "echo")).toMatchObject({
      description: "Echoes back the input string",
      inputSchema: { type: "object" },
    });
  });

  it("falls back to SSE for an SSE-only server when the transport is auto, and not when it is streamable-http", async () => {
    const pool = newPool();
    const result = await pool.callTool(target(legacy.url), "echo", { message: "over sse" });
    expect(result.content?.[0]?.text).toBe("Echo: over sse");
    await expect(pool.callTool(target(legacy.url, { transport: "streamable-http" }), "echo", { message: "x" })).rejects.toThrow(
      new RegExp(`^MCP server at ${legacy.url}: connect \\(streamable-http\\) failed: HTTP 404`),
    );
  });

  it("reports a closed port clearly, does not cache the failure, and serves other servers meanwhile", async () => {
    const pool = newPool();
    const port = await closedPort();
    const dead = target(`http://127.0.0.1:${port}/mcp`);
    await expect(pool.callTool(dead, "echo", { message: "x" })).rejects.toThrow(
      `MCP server at http://127.0.0.1:${port}/mcp: connect (streamable-http) failed: connection refused (ECONNREFUSED)`,
    );
    expect(pool.size).toBe(0);
    const revived = await EverythingServer.start("streamableHttp", port);
    try {
      expect((await pool.callTool(dead, "echo", { message: "now up" })).content?.[0]?.text).toBe("Echo: now up");
    } finally {
      await revived.stop();
    }
  });

  it("bounds a connect to a hung server by the connect timeout, without holding up another server", async () => {
    const hole = await startBlackHole();
    const pool = newPool({ connectTimeoutMs: 1_500 });
    try {
      let hungSettled = false;
      const hung = pool
        .callTool(target(hole.url), "echo", { message: "x" })
        .catch((e: Error) => e)
        .finally(() => (hungSettled = true));
      const echo = await pool.callTool(target(everything.url), "echo", { message: "meanwhile" });
      expect(echo.content?.[0]?.text).toBe("Echo: meanwhile");
      expect(hungSettled).toBe(false); // the other server was served while this connect still hung
      const error = await hung;
      expect(String(error)).toContain(`MCP server at ${hole.url} did not answer connect (streamable-http) within 1500 ms`);
    } finally {
      await hole.close();
    }
  });

  it("bounds a call by the call timeout, and keeps the session for the next call", async () => {
    const pool = newPool({ callTimeoutMs: 500 });
    const slow = target(proxy.url());
    const before = proxy.initializes;
    await expect(pool.callTool(slow, "trigger-long-running-operation", { duration: 3, steps: 3 })).rejects.toThrow(
      `MCP server at ${proxy.url()} did not answer tools/call 'trigger-long-running-operation' within 500 ms`,
    );
    expect(pool.size).toBe(1); // a timeout is the call's problem, not the session's
    expect((await pool.callTool(slow, "echo", { message: "next" })).content?.[0]?.text).toBe("Echo: next");
    expect(proxy.initializes - before).toBe(1);
  });

  it("reconnects transparently after the server restarts and forgot the session", async () => {
    const server = await EverythingServer.start("streamableHttp");
    const pool = newPool();
    try {
      const t = target(server.url);
      expect((await pool.callTool(t, "echo", { message: "before" })).content?.[0]?.text).toBe("Echo: before");
      await server.kill();
      await server.spawn();
      expect((await pool.callTool(t, "echo", { message: "after" })).content?.[0]?.text).toBe("Echo: after");
    } finally {
      await server.stop();
    }
  });

  it("closes sessions no entry uses any more, ending them on the server", async () => {
    const pool = newPool();
    const server = target(proxy.url());
    await pool.callTool(server, "echo", { message: "x" });
    const deletes = proxy.deletes;
    await pool.retain(new Set([server.key]));
    expect(pool.size).toBe(1);
    await pool.retain(new Set());
    expect(pool.size).toBe(0);
    expect(proxy.deletes).toBe(deletes + 1);
  });
});
