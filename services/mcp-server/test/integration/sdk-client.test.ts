import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ECHO_TOOL, JOKE_TOOLS, McpSystem, TOKEN } from "../support/system.js";

const system = new McpSystem();
let client: Client;

beforeAll(async () => {
  await system.start();
  client = new Client({ name: "sdk-client-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(system.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
}, 180_000);
afterAll(async () => {
  await client?.close();
  await system.stop();
});

describe("the MCP TypeScript SDK client", () => {
  it("negotiates the SDK's newest protocol version and lists the catalog", async () => {
    const transport = client.transport as StreamableHTTPClientTransport;
    expect(transport.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const { tools, _meta } = await client.listTools();
    console.log("TS SDK tools/list:", tools.map((t) => t.name).join(", "), "| revision", _meta?.["io.toolmesh/catalog_revision"]);
    expect(tools.map((t) => t.name)).toEqual([ECHO_TOOL, ...JOKE_TOOLS].sort());
    const pun = tools.find((t) => t.name === "tell-pun")!;
    expect(pun.description).toBe("Tells a pun about a topic");
    expect(pun.inputSchema).toMatchObject({ type: "object", required: ["topic"], properties: { topic: { type: "string" } } });
  });

  it("calls a joke-service tool and an mcp-tool tool (server-everything)", async () => {
    const joke = await client.callTool({ name: "tell-dad-joke", arguments: { topic: "cats" } });
    console.log("TS SDK tools/call tell-dad-joke:", JSON.stringify(joke));
    expect(joke).toMatchObject({ content: [{ type: "text", text: "Why don't cats play poker in the jungle? Too many cheetahs." }] });
    expect(joke.isError).toBeFalsy();
    const echo = await client.callTool({ name: ECHO_TOOL, arguments: { message: "hello from the TS SDK" } });
    console.log(`TS SDK tools/call ${ECHO_TOOL}:`, JSON.stringify(echo));
    expect(echo).toMatchObject({ content: [{ type: "text", text: "Echo: hello from the TS SDK" }] });
  });
});
