import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeConfig, MemoryBus } from "@toolmesh/base/testing";
import type { RequestClient } from "@toolmesh/pulsar";
import { McpToolResponse } from "@toolmesh/schema";
import { buildMcpTool } from "../../src/app.js";
import { loadEnv } from "../../src/env.js";
import { type AuthServer, startAuthServer } from "../support/mcp-servers.js";

// The mcp-tool gateway as main.ts builds it, on the in-memory bus with a fake config service, calling an MCP
// server made with the SDK in this process (Streamable HTTP on loopback): no broker, no other process.
const TOKEN = "unit-test-token";
const bus = new MemoryBus();
let server: AuthServer;
let gateway: RequestClient<typeof McpToolResponse>;

beforeAll(async () => {
  server = await startAuthServer(TOKEN);
  const config = await FakeConfig.start(bus);
  await config.set("mcp", "echo", { url: server.url, "auth-token": TOKEN });
  await config.set("mcp", "measure", { url: server.url, "auth-token": TOKEN });
  await config.set("mcp", "fail", { url: server.url, "auth-token": TOKEN });
  await config.set("mcp", "ghost", { url: server.url, "auth-token": TOKEN, "remote-name": "vanished" });
  await config.set("mcp", "no-secret", { url: server.url, "auth-token": "${env:TOOLMESH_UNIT_NEVER_SET}" });
  await config.set("mcp", "broken", { "auth-token": TOKEN });
  const env = loadEnv({ HTTP_PORT: "0" });
  await buildMcpTool(bus.runtime("mcp-tool", env), env);
  gateway = await bus.requester(env.MCP_TOOL_TOPIC, McpToolResponse, 5_000);
});
afterAll(async () => {
  await bus.close();
  await server.close();
});

/** A request as TrustGraph sends it: `parameters` is a JSON-encoded object. */
const call = (name: string, parameters: Record<string, unknown> = {}, operation?: "list-tools") =>
  gateway.request({ name, parameters: JSON.stringify(parameters), ...(operation ? { operation } : {}) });

describe("mcp-tool on the in-memory bus", () => {
  it("answers a text result as text and a structured result as object", async () => {
    expect(await call("echo", { message: "hi" })).toEqual({ error: null, text: "tiny-echo: hi", object: null });
    const measured = await call("measure", { text: "two words" });
    expect(measured.error).toBeNull();
    expect(measured.text).toBeNull();
    expect(JSON.parse(measured.object!)).toEqual({ length: 9, words: 2 });
  });

  it("lists the server's tools with operation list-tools", async () => {
    const listed = await call("echo", {}, "list-tools");
    expect((JSON.parse(listed.object!) as Array<{ name: string }>).map((t) => t.name)).toEqual(["fail", "echo", "measure"]);
  });

  it("passes a tool's own error on as mcp-tool-error", async () => {
    const failed = await call("fail", { reason: "testing" });
    expect(failed).toEqual({ error: { type: "mcp-tool-error", message: "the tool failed on purpose: testing" }, text: null, object: null });
  });

  it("names what is wrong for an unknown entry, a remote tool the server lacks, a bad entry and a missing secret", async () => {
    const error = async (name: string) => (await call(name)).error;
    expect(await error("nope")).toEqual({ type: "mcp-tool-error", message: "no mcp tool 'nope' in config" });
    expect(await error("ghost")).toEqual({
      type: "mcp-tool-error",
      message: `MCP server at ${server.url} has no tool 'vanished' (mcp tool 'ghost'); it offers: fail, echo, measure`,
    });
    expect((await error("broken"))?.message).toMatch(/^mcp tool 'broken' has an invalid config entry: .*url/);
    expect((await error("no-secret"))?.message).toBe(
      "mcp tool 'no-secret' auth-token uses ${env:TOOLMESH_UNIT_NEVER_SET}, but environment variable TOOLMESH_UNIT_NEVER_SET is not set for the mcp-tool service",
    );
  });

  it("answers a malformed request with bad-request, and keeps serving", async () => {
    const noName = await gateway.request({ parameters: "{}" });
    expect(noName.error).toEqual({ type: "bad-request", message: expect.stringMatching(/^invalid message: name: /) });
    const badParameters = await gateway.request({ name: "echo", parameters: "[1, 2]" });
    expect(badParameters.error?.type).toBe("bad-request");
    expect(badParameters.error?.message).toMatch(/parameters/);
    expect((await call("echo", { message: "still here" })).text).toBe("tiny-echo: still here");
  });
});
