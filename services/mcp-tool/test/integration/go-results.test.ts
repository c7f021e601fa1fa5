import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GoMcpServer } from "@toolmesh/test-support";
import { McpToolSystem, TOKEN_VAR, tokenEntry } from "../support/system.js";

// Tools built with the Go MCP SDK (go-sdk 1.8.0), called through toolmesh's mcp-tool service over the real
// broker and config service: what each kind of result becomes in mcp-tool's reply (design §2). The server
// wants a bearer token.
const TOKEN = "go-peer-token";
let server: GoMcpServer;
let system: McpToolSystem;

beforeAll(async () => {
  server = await GoMcpServer.start({ token: TOKEN });
  system = await McpToolSystem.start({ [TOKEN_VAR]: TOKEN });
  const entry = (tool: string, extra: Record<string, unknown> = {}) => tokenEntry(server.url, tool, extra);
  await system.putMcp({
    "go-echo": entry("echo"),
    "go-weather": entry("weather"),
    "go-fail": entry("fail"),
    "go-wrong-token": entry("echo", { "auth-token": "not-the-token" }),
  });
});

afterAll(async () => {
  await system?.stop();
  await server?.stop();
});

describe("a Go MCP SDK server's tools through mcp-tool", () => {
  it("a text result comes back as its text", async () => {
    expect(await system.call("go-echo", { message: "hi" })).toEqual({ error: null, text: "go-echo: hi", object: null });
  });

  it("a structured result comes back as its object", async () => {
    const reply = await system.call("go-weather", { city: "Oslo" });
    expect(reply).toMatchObject({ error: null, text: null });
    expect(JSON.parse(reply.object!)).toEqual({ city: "Oslo", temperature: 21.5, conditions: "sunny" });
  });

  it("a tool error comes back as an mcp-tool error with the tool's message", async () => {
    const reply = await system.call("go-fail", {});
    expect(reply.error?.type).toBe("mcp-tool-error");
    expect(reply.error?.message).toContain("the go tool failed on purpose");
  });

  it("arguments the Go SDK's schema refuses come back as an error naming the field", async () => {
    const reply = await system.call("go-echo", { message: 42 });
    console.info(`go-echo with a number: ${JSON.stringify(reply.error)}`);
    expect(reply.error?.type).toBe("mcp-tool-error");
    expect(reply.error?.message).toMatch(/message/);
  });

  it("a wrong token is reported as refused", async () => {
    const reply = await system.call("go-wrong-token", { message: "x" });
    expect(reply.error?.message).toBe(
      `MCP server at ${server.url}: connect (streamable-http) failed: HTTP 401 Unauthorized: the server refused the token (check the entry's 'auth-token' or Authorization header)`,
    );
  });
});
