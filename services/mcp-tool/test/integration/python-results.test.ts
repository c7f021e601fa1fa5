import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PythonMcpServer } from "@toolmesh/test-support";
import { McpToolSystem, TOKEN_VAR, tokenEntry } from "../support/system.js";

// What tools built with the Python MCP SDK 2.3 answer, as mcp-tool replies (design §2), through the real
// broker and config service; the server wants a bearer token (the SDK's own bearer middleware).
const TOKEN = "python-peer-token";
const RED_DOT = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
let server: PythonMcpServer;
let system: McpToolSystem;

beforeAll(async () => {
  server = await PythonMcpServer.start({ token: TOKEN });
  system = await McpToolSystem.start({ [TOKEN_VAR]: TOKEN });
  const entry = (tool: string, extra: Record<string, unknown> = {}) => tokenEntry(server.url, tool, extra);
  await system.putMcp({
    "py-echo": entry("echo"),
    "py-plain": entry("plain"),
    "py-picture": entry("picture"),
    "py-weather": entry("weather"),
    "py-wrong-token": entry("echo", { "auth-token": "not-the-token" }),
    "py-no-token": { url: server.url, "remote-name": "echo" },
  });
});

afterAll(async () => {
  await system?.stop();
  await server?.stop();
});

describe("results (issue 12 item 11)", () => {
  it("a `-> str` tool (structuredContent {result}) comes back as its text", async () => {
    expect(await system.call("py-echo", { message: "hi" })).toEqual({ error: null, text: "py-echo: hi", object: null });
  });

  it("a text-only tool comes back as text", async () => {
    expect(await system.call("py-plain", { message: "hi" })).toEqual({ error: null, text: "plain: hi", object: null });
  });

  it("text and an image keep the image: object is the MCP content array", async () => {
    const reply = await system.call("py-picture");
    expect(reply).toMatchObject({ error: null, text: null });
    expect(JSON.parse(reply.object!)).toEqual([
      { type: "text", text: "A red dot:" },
      { type: "image", data: RED_DOT, mimeType: "image/png" },
    ]);
  });

  it("a structured result comes back as its object", async () => {
    const reply = await system.call("py-weather", { city: "Oslo" });
    expect(reply).toMatchObject({ error: null, text: null });
    expect(JSON.parse(reply.object!)).toEqual({ city: "Oslo", temperature: 21.5, conditions: "sunny" });
  });
});

describe("credentials (issue 12 item 11)", () => {
  it("a wrong token is reported as refused, not as missing", async () => {
    const reply = await system.call("py-wrong-token", { message: "x" });
    expect(reply.error?.type).toBe("mcp-tool-error");
    expect(reply.error?.message).toBe(
      `MCP server at ${server.url}: connect (streamable-http) failed: HTTP 401 Unauthorized: the server refused the token (check the entry's 'auth-token' or Authorization header)`,
    );
  });

  it("no token at all asks for one", async () => {
    const reply = await system.call("py-no-token", { message: "x" });
    expect(reply.error?.message).toBe(
      `MCP server at ${server.url}: connect (streamable-http) failed: HTTP 401 Unauthorized: the server wants credentials; set the entry's 'auth-token' (or an Authorization header, or 'oauth2')`,
    );
  });
});
