import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { waitFor } from "@toolmesh/test-support";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { McpHttpLink } from "../../src/mcp-http-link.js";
import { McpEndpointDouble } from "../support/mcp-endpoint-double.js";

const INITIALIZE: JSONRPCMessage = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "0" } },
};
const CALL: JSONRPCMessage = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "joke", arguments: {} } };

let endpoint: McpEndpointDouble;
let link: McpHttpLink;
let received: JSONRPCMessage[];
let logged: string[];

beforeEach(async () => {
  endpoint = await McpEndpointDouble.start();
  received = [];
  logged = [];
  link = new McpHttpLink({ url: endpoint.url, token: undefined, log: (line) => logged.push(line), onmessage: (m) => received.push(m) });
  await link.start();
  await link.send(INITIALIZE);
  await link.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await waitFor(() => endpoint.streamCount === 1, { description: "the notification stream" });
});

afterEach(async () => {
  await link.close();
  await endpoint.stop();
});

describe("McpHttpLink when the server forgets the session", () => {
  it("sends a request again on a new session after the server's 404", async () => {
    endpoint.forget();
    await link.send(CALL);
    await waitFor(() => received.some((m) => "id" in m && m.id === 2), { description: "the call's answer" });
    expect(received.find((m) => "id" in m && m.id === 2)).toMatchObject({ result: { content: [{ text: "answered on session-2" }] } });
    expect(received).toContainEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
  });

  it("lets a request in flight on the old session finish while the notification stream's recovery replaces it", async () => {
    // The restart ends the notification stream; the SDK opens it again about a second later, gets 404, and
    // the link opens session-2 by itself. The call goes out on session-1 just after the restart, and its 404
    // is held until session-2 is open: closing session-1's transport then must not abort it.
    let release!: () => void;
    endpoint.holdUnknownUntil = new Promise((resolve) => (release = resolve));
    endpoint.forget();
    const call = link.send(CALL);
    await waitFor(() => logged.some((line) => line.includes("initialized a new one, session-2")), {
      description: "the new session the stream's recovery opened",
      timeoutMs: 8_000,
    });
    release();
    await call;
    await waitFor(() => received.some((m) => "id" in m && m.id === 2), { description: "the call's answer" });
    expect(received.find((m) => "id" in m && m.id === 2)).toMatchObject({ result: { content: [{ text: "answered on session-2" }] } });
    expect(endpoint.seen.filter((line) => line.startsWith("POST tools/call"))).toEqual([
      "POST tools/call session-1",
      "POST tools/call session-2",
    ]);
    expect(link.sessionId).toBe("session-2");
  });
});

describe("McpHttpLink when the server refuses the notification stream", () => {
  const open = async (): Promise<{ other: McpHttpLink; heard: JSONRPCMessage[]; lines: string[] }> => {
    const heard: JSONRPCMessage[] = [];
    const lines: string[] = [];
    const other = new McpHttpLink({
      url: endpoint.url,
      token: undefined,
      log: (line) => lines.push(line),
      onmessage: (m) => heard.push(m),
    });
    await other.start();
    await other.send(INITIALIZE);
    await other.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    return { other, heard, lines };
  };

  it("opens a new session when the stream is refused right after initialize (the server began shutting down), which the SDK never retries", async () => {
    endpoint.refuseStreams = 1;
    const { other, heard, lines } = await open();
    try {
      await waitFor(() => endpoint.streamCount === 2, { description: "the new session's notification stream", timeoutMs: 8_000 });
      expect(other.sessionId).toBe("session-3");
      expect(heard).toContainEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
      // The refusal is logged once, though the SDK reports it twice.
      expect(lines.filter((line) => line.includes("Failed to open SSE stream: Service Unavailable"))).toHaveLength(1);
      expect(lines).toContainEqual(
        expect.stringMatching(/^session session-2 is unknown to the server .*initialized a new one, session-3$/),
      );
    } finally {
      await other.close();
    }
  });

  it("waits longer each time while streams keep being refused, and not once one opens", async () => {
    endpoint.refuseStreams = Number.POSITIVE_INFINITY;
    const initializes = () => endpoint.seen.filter((line) => line.startsWith("POST initialize")).length;
    const before = initializes();
    const { other } = await open();
    try {
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      // Its own session, a new one at once when its stream is refused, then after 1 s, 2 s more, ...: not one
      // per round trip.
      expect(initializes() - before).toBeGreaterThanOrEqual(2);
      expect(initializes() - before).toBeLessThanOrEqual(3);
      endpoint.refuseStreams = 0;
      await waitFor(() => endpoint.streamCount === 2, { description: "a stream once the server opens them", timeoutMs: 8_000 });
      const opened = initializes();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(initializes()).toBe(opened);
    } finally {
      await other.close();
    }
  });
});
