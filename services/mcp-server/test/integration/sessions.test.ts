import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceRuntime } from "@toolmesh/base";
import { waitFor } from "@toolmesh/test-support";
import { STREAM_TOOLS, StreamService } from "../support/stream-service.js";
import { ECHO_TOOL, JOKE_TOOLS, McpSystem, TOKEN } from "../support/system.js";

const system = new McpSystem();
const clients: Client[] = [];
let streams: ServiceRuntime | undefined;
let firstRevision = 0;

/** An SDK client on `path` (e.g. `/mcp?revision=latest`) that counts the list_changed notifications it gets. */
async function connect(path: string) {
  const client = new Client({ name: `sessions-test ${path}`, version: "1.0.0" });
  const changes: number[] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes.push(Date.now()));
  const url = new URL(path, system.mcpUrl);
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  clients.push(client);
  return { client, changes };
}

/** Every page of tools/list, following nextCursor. */
async function listAll(client: Client) {
  const tools: Tool[] = [];
  const revisions = new Set<unknown>();
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor });
    tools.push(...page.tools);
    revisions.add(page._meta?.["io.toolmesh/catalog_revision"]);
    cursor = page.nextCursor;
    pages++;
  } while (cursor);
  return { names: tools.map((t) => t.name), tools, pages, revisions: [...revisions] };
}

beforeAll(async () => {
  // Pages of 2 tools, so every listing here also exercises the cursor; sessions idle after 3 s.
  await system.start({ MCP_PAGE_SIZE: "2", MCP_SESSION_IDLE_MS: "3000" });
  firstRevision = await system.waitForTools([...JOKE_TOOLS, ECHO_TOOL]);
}, 180_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await streams?.stop();
  await system.stop();
});

const BEFORE = [ECHO_TOOL, ...JOKE_TOOLS].sort();
const AFTER = [...BEFORE, ...STREAM_TOOLS].sort();

describe("sessions, revisions and tool groups", () => {
  it("pages tools/list with cursors that stay on one revision, and refuses a cursor it did not hand out", async () => {
    const { client } = await connect("/mcp");
    const listing = await listAll(client);
    expect(listing.names).toEqual(BEFORE);
    expect(listing.pages).toBe(2);
    expect(listing.revisions).toEqual([firstRevision]);
    await expect(client.listTools({ cursor: "not-a-cursor" })).rejects.toThrow(/invalid cursor/);
  });

  it("tells a latest-following session about a newly announced tool service; a pinned session sees no change", async () => {
    const latest = await connect("/mcp?revision=latest");
    const pinned = await connect("/mcp");
    const pinnedByNumber = await connect(`/mcp?revision=${firstRevision}`);
    const group = await connect("/mcp/groups/streams?revision=latest");
    expect((await listAll(group.client)).names).toEqual([]);

    streams = await StreamService.run(system.webServiceUrl);
    const revision = await system.waitForTools(STREAM_TOOLS);
    await waitFor(() => latest.changes.length > 0 && group.changes.length > 0, {
      timeoutMs: 15_000,
      description: "tools/list_changed on the latest-following sessions",
    });

    const seen = await listAll(latest.client);
    console.log(`latest-following session after list_changed: revision ${String(seen.revisions)}: ${seen.names.join(", ")}`);
    expect(seen.names).toEqual(AFTER);
    expect(seen.revisions).toEqual([revision]);
    for (const session of [pinned, pinnedByNumber]) {
      const still = await listAll(session.client);
      expect(still.names).toEqual(BEFORE);
      expect(still.revisions).toEqual([firstRevision]);
      expect(session.changes).toEqual([]);
      await expect(session.client.callTool({ name: "count-up", arguments: { to: 2 } })).rejects.toThrow(
        `unknown tool 'count-up': catalog revision ${firstRevision} has no such tool`,
      );
    }
    console.log(`pinned sessions: still revision ${firstRevision}, ${pinned.changes.length} list_changed notifications`);
    expect((await listAll(group.client)).names).toEqual(STREAM_TOOLS);
  });

  it("streams a tool service's chunks as progress notifications when the client sends a progress token", async () => {
    const { client } = await connect("/mcp?revision=latest");
    const progress: Array<{ progress: number; message?: string | undefined }> = [];
    const result = await client.callTool({ name: "count-up", arguments: { to: 3 } }, undefined, {
      onprogress: (p) => void progress.push({ progress: p.progress, message: p.message }),
    });
    console.log("count-up:", JSON.stringify(result), "progress:", JSON.stringify(progress));
    expect(result).toMatchObject({ content: [{ type: "text", text: "1 2 3" }] });
    expect(progress).toEqual([
      { progress: 1, message: "1 " },
      { progress: 2, message: "2 " },
      { progress: 3, message: "3" },
    ]);
  });

  it("gives a JSON result as structuredContent plus text, with the manifest's output schema and annotations listed", async () => {
    const { client } = await connect("/mcp/groups/streams");
    const { tools } = await listAll(client);
    const weather = tools.find((t) => t.name === "weather-report")!;
    expect(weather).toMatchObject({
      title: "Weather report",
      annotations: { title: "Weather report", readOnlyHint: true },
      outputSchema: { type: "object", required: ["city", "celsius"] },
    });
    const result = await client.callTool({ name: "weather-report", arguments: { city: "Lyon" } });
    console.log("weather-report:", JSON.stringify(result));
    expect(result.structuredContent).toEqual({ city: "Lyon", celsius: 21 });
    expect(result.content).toEqual([{ type: "text", text: '{"city":"Lyon","celsius":21}' }]);
  });

  it("serves only a group's tools on its URL; tools naming no group are in 'default'", async () => {
    const defaults = await connect("/mcp/groups/default");
    expect((await listAll(defaults.client)).names).toEqual(BEFORE);
    await expect(defaults.client.callTool({ name: "count-up", arguments: { to: 1 } })).rejects.toThrow(/group 'default'/);
  });

  it("closes a session left idle, but not one whose client keeps its notification stream open", async () => {
    const listening = await connect("/mcp?revision=latest");
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${TOKEN}` };
    const opened = await fetch(system.mcpUrl, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "idle", version: "1" } },
      }),
    });
    await opened.text();
    const idle = opened.headers.get("mcp-session-id")!;
    const ping = () =>
      fetch(system.mcpUrl, {
        method: "POST",
        headers: { ...headers, "mcp-session-id": idle, "mcp-protocol-version": "2025-11-25" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }),
      });
    const gone = await waitFor(
      async () => {
        const reply = await ping();
        return reply.status === 404
          ? { status: reply.status, contentType: reply.headers.get("content-type"), body: await reply.json() }
          : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 7_000, description: "the idle session to be closed" },
    );
    // The same answer as for a session this instance never had, so clients re-initialize as the spec says.
    expect(gone).toEqual({
      status: 404,
      contentType: expect.stringMatching(/^application\/json/),
      body: {
        jsonrpc: "2.0",
        id: 2,
        error: {
          code: -32001,
          message: `session '${idle}' not found (closed, expired, or opened at another URL): initialize again`,
          data: { type: "not-found" },
        },
      },
    });
    expect((await listAll(listening.client)).names).toEqual(AFTER);
  });
});
