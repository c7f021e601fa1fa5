import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pythonPeer } from "@toolmesh/test-support";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { ECHO_TOOL, McpSystem, TOKEN } from "../support/system.js";

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const PUN_CATS = "Here's a pun: my cat is a great DJ, he always brings the mewsic.";

type Answer = {
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
  exception?: string;
  gathered?: Answer[];
  status?: number;
};

/**
 * Runs steps through the Python MCP SDK's own session (test/support/python_mcp_raw.py): [method, params]
 * sent as given (past its typed API), ["!gather", [...]] at once, ["!delete-session", null] behind its back.
 */
async function pythonRaw(steps: Array<[string, unknown]>, url = system.mcpUrl): Promise<Answer[]> {
  const file = join(mkdtempSync(join(tmpdir(), "mcp-raw-")), "steps.json");
  writeFileSync(file, JSON.stringify(steps));
  const { stdout } = await run(pythonPeer("mcp"), [join(here, "../support/python_mcp_raw.py"), url, TOKEN, `@${file}`], {
    timeout: 90_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return (JSON.parse(stdout.trim().split("\n").at(-1)!) as { answers: Answer[] }).answers;
}

/** A raw POST on an open session (or none), as a client nobody here wrote might send it. */
async function post(body: string, session?: string) {
  const response = await fetch(system.mcpUrl, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
      ...(session ? { "mcp-session-id": session } : {}),
    },
    body,
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function openSession(): Promise<string> {
  const init = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "raw-http", version: "1" } },
  };
  const reply = await post(JSON.stringify(init));
  const session = reply.headers.get("mcp-session-id")!;
  expect((await post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), session)).status).toBe(202);
  return session;
}

const pun = (topic: string) => ["tools/call", { name: "tell-pun", arguments: { topic } }] as [string, unknown];
const PAGE = 2;
const system = new McpSystem();
let revision = 0;
beforeAll(async () => {
  await system.start({ MCP_PAGE_SIZE: String(PAGE) });
  revision = await system.waitForTools(["tell-pun", ECHO_TOOL]);
}, 180_000);
afterAll(() => system.stop());

describe("MCP edge cases from clients nobody here wrote", () => {
  it("tools/call and tools/list with malformed params: -32602 Invalid params with a short message (Python SDK client)", async () => {
    const answers = await pythonRaw([
      ["tools/call", { name: "tell-pun", arguments: '{"topic": "cats"}' }],
      ["tools/call", { name: "tell-pun", arguments: ["cats"] }],
      ["tools/call", { arguments: { topic: "cats" } }],
      ["tools/call", { name: 5, arguments: {} }],
      ["tools/call", null],
      ["tools/call", { name: "tell-pun", arguments: { topic: "cats" }, _meta: { progressToken: [1] } }],
      ["tools/list", { cursor: 5 }],
      ["tools/call", { name: "tell-pun", arguments: { topic: "cats" } }],
    ]);
    console.log("malformed params:", JSON.stringify(answers));
    const prefix = "invalid params for tools/call: ";
    expect(answers.slice(0, 7).map((a) => a.error)).toEqual([
      { code: -32602, message: `${prefix}'arguments' must be an object, not a string` },
      { code: -32602, message: `${prefix}'arguments' must be an object, not an array` },
      { code: -32602, message: `${prefix}'name' is missing` },
      { code: -32602, message: `${prefix}'name' must be a string, not a number` },
      { code: -32602, message: `${prefix}params are missing (an object with the tool's 'name' and its 'arguments')` },
      { code: -32602, message: `${prefix}'_meta.progressToken' must be a string or a number, not an array` },
      { code: -32602, message: "invalid params for tools/list: 'cursor' must be a string, not a number" },
    ]);
    expect(answers[7]).toEqual({ result: { content: [{ type: "text", text: PUN_CATS }] } });
    const logs = system.processes.get("mcp-server")!.logs;
    expect(logs).toContain(
      `"method":"tools/call","reason":"${prefix}'arguments' must be an object, not a string","msg":"refused an MCP request"`,
    );
  });

  it("an unknown tool: -32602 naming the tool, without the SDK's 'MCP error' prefix inside the message", async () => {
    const [unknown, after] = await pythonRaw([["tools/call", { name: "no-such-tool", arguments: {} }], pun("cats")]);
    expect(unknown).toEqual({
      error: {
        code: -32602,
        message: `unknown tool 'no-such-tool': catalog revision ${revision} has no such tool (tools/list shows what it offers)`,
      },
    });
    expect(after).toEqual({ result: { content: [{ type: "text", text: PUN_CATS }] } });
  });

  it("tools/list with cursors: pages of one revision; a forged, unknown-revision or other-revision cursor is -32602", async () => {
    const cursor = (rev: number, offset: number) => Buffer.from(JSON.stringify([rev, offset])).toString("base64url");
    const answers = await pythonRaw([
      ["tools/list", null],
      ["tools/list", { cursor: cursor(revision, PAGE) }],
      ["tools/list", { cursor: "abc" }],
      ["tools/list", { cursor: cursor(999, 0) }],
      ["tools/list", { cursor: cursor(revision - 1, 0) }],
      ["tools/list", { cursor: cursor(revision, 1000) }],
    ]);
    // A session following the newest revision may page through an older one (it moved on mid-listing).
    const [older, unknown] = await pythonRaw(
      [
        ["tools/list", { cursor: cursor(revision - 1, 0) }],
        ["tools/list", { cursor: cursor(999, 0) }],
      ],
      `${system.mcpUrl}?revision=latest`,
    );
    console.log("cursors:", JSON.stringify(answers.map((a) => a.error ?? (a.result?.tools as unknown[]).length)));
    const names = (a: Answer) => (a.result!.tools as Array<{ name: string }>).map((t) => t.name);
    expect(names(answers[0]!)).toHaveLength(PAGE);
    expect(answers[0]!.result!.nextCursor).toBe(cursor(revision, PAGE));
    expect([...names(answers[0]!), ...names(answers[1]!)]).toEqual(expect.arrayContaining(["tell-pun", ECHO_TOOL]));
    expect(answers.slice(2, 5).map((a) => a.error)).toEqual([
      { code: -32602, message: "invalid cursor 'abc': pass back a nextCursor from tools/list" },
      {
        code: -32602,
        message: `invalid cursor '${cursor(999, 0)}': it lists catalog revision 999, and this session is pinned to revision ${revision}`,
      },
      {
        code: -32602,
        message: `invalid cursor '${cursor(revision - 1, 0)}': it lists catalog revision ${revision - 1}, and this session is pinned to revision ${revision}`,
      },
    ]);
    expect(answers[5]!.result!.tools).toEqual([]);
    expect(older!.result!._meta).toMatchObject({ "io.toolmesh/catalog_revision": revision - 1 });
    expect(unknown!.error).toEqual({
      code: -32602,
      message: `invalid cursor '${cursor(999, 0)}': catalog revision 999 does not exist; pass back a nextCursor from tools/list`,
    });
  });

  it("arguments over the body limit or the broker's message limit: a clear error, and the session goes on", async () => {
    // 6 MiB is over the 5 MiB body limit; 2.4 Mi quotes fit the body (escaped once) but not a Pulsar message (escaped twice).
    const [overBody, overBroker, after] = await pythonRaw([
      ["tools/call", { name: "tell-pun", arguments: { topic: "a".repeat(6 * 1024 * 1024) } }],
      ["tools/call", { name: "tell-pun", arguments: { topic: '"'.repeat(2400 * 1024) } }],
      pun("cats"),
    ]);
    console.log("huge arguments:", JSON.stringify([overBody, overBroker]));
    expect(overBody!.error!.code).toBe(-32600);
    expect(overBody!.error!.message).toMatch(/^the request body of 629\d{4} bytes is over this MCP server's limit of 5242880 bytes$/);
    expect(overBroker!.result!.isError).toBe(true);
    expect((overBroker!.result!.content as Array<{ text: string }>)[0]!.text).toMatch(
      /^tool tell-pun failed: could not call it: a request of \d+ bytes for non-persistent:\/\/[^ ]+\/request\/joke exceeds the limit of \d+ bytes$/,
    );
    expect(after).toEqual({ result: { content: [{ type: "text", text: PUN_CATS }] } });
    // The caller's arguments were too large: its call-log line says so, with no warning and stack trace.
    const logs = system.processes.get("mcp-server")!.logs.split("\n");
    expect(logs.filter((line) => line.includes('"tool call failed"'))).toEqual([]);
    expect(logs.some((line) => line.includes('"outcome":"invalid-arguments"') && line.includes("exceeds the limit"))).toBe(true);
  });

  it("a session deleted and then used again: 404 with -32001 'session not found' (Python SDK and raw HTTP)", async () => {
    const [deleted, reused] = await pythonRaw([["!delete-session", null], pun("cats")]);
    expect(deleted).toEqual({ status: 200 });
    expect(reused!.error).toEqual({
      code: -32001,
      message: expect.stringMatching(/^session '[0-9a-f-]{36}' not found \(closed, expired, or opened at another URL\): initialize again$/),
    });
    const session = await openSession();
    const remove = () =>
      fetch(system.mcpUrl, { method: "DELETE", headers: { authorization: `Bearer ${TOKEN}`, "mcp-session-id": session } });
    expect((await remove()).status).toBe(200);
    const again = await remove();
    expect(again.status).toBe(404);
    expect(((await again.json()) as { error: { code: number } }).error.code).toBe(-32001);
  });

  it("a request sent as a notification (no id): 400 with -32600 saying it needs an id, not a silent 202", async () => {
    const session = await openSession();
    const notification = await post(
      JSON.stringify({ jsonrpc: "2.0", method: "tools/call", params: { name: "tell-pun", arguments: { topic: "cats" } } }),
      session,
    );
    console.log("request as a notification:", notification.status, notification.text);
    expect(notification.status).toBe(400);
    expect(JSON.parse(notification.text)).toMatchObject({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "invalid request: tools/call is a request: send it with an 'id' (a notification gets no answer)" },
    });
    const idNull = await post(JSON.stringify({ jsonrpc: "2.0", id: null, method: "tools/list" }), session);
    expect(idNull.status).toBe(400);
    expect(JSON.parse(idNull.text).error).toMatchObject({
      code: -32600,
      message: "invalid request: 'id' must be a string or an integer, not null",
    });
    const listed = await post(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }), session);
    expect(listed.status).toBe(200);
    expect(listed.text).toContain('"io.toolmesh/catalog_revision"');
  });

  it("concurrent calls on one session: every answer goes to its own request", async () => {
    const messages = Array.from({ length: 16 }, (_, i) => `message ${i}`);
    const [gathered] = await pythonRaw([
      [
        "!gather",
        [
          ...messages.map((message) => ["tools/call", { name: ECHO_TOOL, arguments: { message } }]),
          pun("cats"),
          ["tools/list", null],
          ["tools/call", { name: "tell-pun", arguments: "cats" }],
        ],
      ],
    ]);
    const answers = gathered!.gathered!;
    expect(answers.slice(0, 16).map((a) => (a.result?.content as Array<{ text: string }>)[0]!.text)).toEqual(
      messages.map((m) => `Echo: ${m}`),
    );
    expect(answers[16]).toEqual({ result: { content: [{ type: "text", text: PUN_CATS }] } });
    expect((answers[17]!.result!.tools as unknown[]).length).toBe(PAGE);
    expect(answers[18]!.error).toEqual({
      code: -32602,
      message: "invalid params for tools/call: 'arguments' must be an object, not a string",
    });
    expect((await fetch(`${system.processes.get("mcp-server")!.url}/healthz`)).status).toBe(200);
  });
});
