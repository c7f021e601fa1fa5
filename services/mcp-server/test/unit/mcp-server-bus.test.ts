import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BaseEnv } from "@toolmesh/base";
import { FakeToolRegistry, MemoryBus, Shouter, shoutRevision } from "@toolmesh/base/testing";
import { waitFor } from "@toolmesh/test-support";
import { buildMcpServer } from "../../src/app.js";
import { loadEnv } from "../../src/env.js";

// The MCP server as main.ts builds it, on the in-memory bus with a fake tool registry and a tool service on
// the same bus; an MCP SDK client talks to it over loopback HTTP. No broker, no other process.
const bus = new MemoryBus();
const clients: Client[] = [];
let registry: FakeToolRegistry;
let mcpUrl: string;

/** An MCP client session on `?revision=` (absent = pinned to the current revision). */
async function connect(revision?: string): Promise<Client> {
  const client = new Client({ name: "unit", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${mcpUrl}${revision ? `?revision=${revision}` : ""}`)));
  clients.push(client);
  return client;
}
const textOf = (result: Awaited<ReturnType<Client["callTool"]>>) =>
  (result.content as Array<{ text: string }>).map((c) => c.text).join("\n");

beforeAll(async () => {
  registry = await FakeToolRegistry.start(bus, [shoutRevision]);
  await new Shouter().start(bus.runtime("shouter", BaseEnv.parse({ HTTP_PORT: "0" })), { announce: false });
  // A quick safety-net poll, so a missed or unreadable push is caught within the test's wait.
  const env = loadEnv({ HTTP_PORT: "0", MCP_REGISTRY_POLL_MS: "100" });
  const runtime = bus.runtime("mcp-server", env);
  const app = await buildMcpServer(runtime, env);
  mcpUrl = `${await runtime.listen()}/mcp`;
  await waitFor(() => app.catalog.reachable, { timeoutMs: 2_000, intervalMs: 10, description: "the registry to answer" });
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await bus.close();
});

describe("mcp-server on the in-memory bus", () => {
  it("lists the current revision's tools and calls one through its tool service", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => [t.name, t.description])).toEqual([["shout", "Shouts the text"]]);
    expect(tools[0]!.inputSchema).toMatchObject({ type: "object", properties: { text: { type: "string" } }, required: ["text"] });
    const result = await client.callTool({ name: "shout", arguments: { text: "hi" } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe("HI!");
  });

  it("answers bad arguments with an isError result naming the problem, and an unknown tool with a protocol error", async () => {
    const client = await connect();
    const bad = await client.callTool({ name: "shout", arguments: { words: "hi" } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/^invalid arguments for shout: .*text/);
    await expect(client.callTool({ name: "nope", arguments: {} })).rejects.toThrow(/unknown tool 'nope'/);
    expect(textOf(await client.callTool({ name: "shout", arguments: { text: "still here" } }))).toBe("STILL HERE!");
  });

  it("answers MCP 2026-07-28's server/discover with an error that sends its client to initialize", async () => {
    const response = await fetch(mcpUrl, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { protocolVersion: "2026-07-28" } }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32601, message: expect.stringMatching(/^server\/discover is MCP 2026-07-28's; .*initialize a session$/) },
    });
  });

  it("refuses a session on a revision the registry does not have, or on a malformed one", async () => {
    await expect(connect("9")).rejects.toThrow(/unknown catalog revision 9/);
    await expect(connect("soon")).rejects.toThrow(/revision must be 'latest' or a revision number, not 'soon'/);
  });

  it("moves a `latest` session to a newly pushed revision while a pinned session keeps its own", async () => {
    const pinned = await connect();
    const latest = await connect("latest");
    const shout = shoutRevision.tools[0]!;
    const whisper = {
      ...shout,
      tool_id: "whisper",
      name: "whisper",
      content_hash: "t2",
      binding: { ...shout.binding, config: { suffix: "..." } },
    };
    await registry.publish({ ...shoutRevision, revision_number: 4, content_hash: "h4", tool_count: 2, tools: [shout, whisper] });

    await waitFor(async () => (await latest.listTools()).tools.some((t) => t.name === "whisper"), {
      timeoutMs: 2_000,
      intervalMs: 10,
      description: "whisper in the latest session",
    });
    expect(textOf(await latest.callTool({ name: "whisper", arguments: { text: "psst" } }))).toBe("PSST...");
    expect((await pinned.listTools()).tools.map((t) => t.name)).toEqual(["shout"]);
  });

  it("moves a `latest` session to a revision whose push came before the registry could serve it, at the next poll", async () => {
    const latest = await connect("latest");
    const shout = shoutRevision.tools[0]!;
    const murmur = {
      ...shout,
      tool_id: "murmur",
      name: "murmur",
      content_hash: "t5",
      binding: { ...shout.binding, config: { suffix: "~" } },
    };
    const revision = { ...shoutRevision, revision_number: 5, content_hash: "h5", tool_count: 2, tools: [shout, murmur] };
    // The push arrives first: reading revision 5 fails (not-found). Then the registry has it, and no push follows.
    await registry.pushOnly(revision);
    await new Promise((resolve) => setTimeout(resolve, 300));
    registry.add(revision);
    await waitFor(async () => (await latest.listTools()).tools.some((t) => t.name === "murmur"), {
      timeoutMs: 3_000,
      intervalMs: 20,
      description: "murmur in the latest session after the poll",
    });
  });
});
