import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceRuntime } from "@toolmesh/base";
import { brokerEnv, EverythingServer, ServiceProcess, useBroker } from "@toolmesh/test-support";
import {
  type RunningGateway,
  SocketClient,
  TestTool,
  registerToolService,
  startConfigService,
  startGateway,
  startTools,
  toolRequest,
  unique,
} from "./fixture.js";

// Issue 12, item 1: a timeout names its real cause, on REST and on the socket alike, and the innermost
// component that knows the cause answers first (mcp-tool's own timeout before the gateway's).
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts a stream, then (asked to stall) goes quiet for longer than the gateway waits. A chunk goes out when
 * the next one is known (the last is marked end_of_stream), so the first is sent as the second is yielded.
 */
const stalls = new TestTool(async function* (args) {
  yield "first chunk";
  yield "second chunk";
  if (args.stall) await sleep(5_000);
  yield "last chunk";
});

let config: { stop: () => Promise<void> };
let tools: ServiceRuntime;
let mcpTool: ServiceProcess;
let everything: EverythingServer;
let gw: RunningGateway;
let socket: SocketClient;

beforeAll(async () => {
  const broker = await useBroker();
  config = await startConfigService(broker);
  tools = await startTools(broker, [stalls]);
  everything = await EverythingServer.start("streamableHttp");
  // mcp-tool gives up on a remote call after 2 s; the gateway waits 1.5 s for tool services but longer for
  // mcp-tool (GATEWAY_MCP_TOOL_TIMEOUT_MS, 45 s by default), so mcp-tool's error reaches the caller.
  mcpTool = await ServiceProcess.start({ service: "mcp-tool", env: { ...brokerEnv(broker), MCP_CALL_TIMEOUT_MS: "2000" } });
  gw = await startGateway(broker, { GATEWAY_REQUEST_TIMEOUT_MS: "1500" });
  await registerToolService(gw, stalls.id, stalls.topic);
  // Once through, so that no first-use set-up (subscriptions, producers) counts against the 1.5 s.
  const warm = await gw.runtime.http.inject({ method: "POST", url: `/api/v1/flow/default/service/${stalls.id}`, payload: toolRequest() });
  if (warm.statusCode !== 200) throw new Error(`warm-up call failed: ${warm.body}`);
  socket = await SocketClient.connect(`${(await gw.runtime.listen()).replace(/^http/, "ws")}/api/v1/socket`);
}, 120_000);

afterAll(async () => {
  socket?.close();
  await gw?.runtime.stop();
  await mcpTool?.stop();
  await everything?.stop();
  await tools?.stop();
  await config?.stop();
});

describe("timeouts name their cause", () => {
  it("says a stream stopped after its first reply, on REST and on the socket", async () => {
    const response = await gw.runtime.http.inject({
      method: "POST",
      url: `/api/v1/flow/default/service/${stalls.id}`,
      payload: toolRequest({ stall: true }),
    });
    expect(response.statusCode).toBe(504);
    const { error } = response.json();
    expect(error).toEqual({
      type: "timeout",
      message: expect.stringMatching(
        new RegExp(`^tool service '${stalls.id}' sent 1 reply, then nothing more for 1500 ms \\(GATEWAY_REQUEST_TIMEOUT_MS\\)`),
      ),
    });
    expect(error.message).toContain(stalls.topic);

    socket.send({ id: "stalls", service: stalls.id, flow: "default", request: toolRequest({ stall: true }) });
    const frames = await socket.answer("stalls");
    expect(frames[0]).toMatchObject({ response: { response: "first chunk" }, complete: false });
    expect(frames[1]).toMatchObject({
      error: {
        type: "timeout",
        message: expect.stringContaining(`tool service '${stalls.id}' sent 1 reply, then nothing more for 1500 ms`),
      },
      complete: true,
    });
  });

  it("lets mcp-tool answer a remote call's timeout itself, though it takes longer than the gateway's request timeout", async () => {
    const id = unique("slow-mcp");
    const put = await gw.runtime.http.inject({
      method: "POST",
      url: "/api/v1/flow/default/service/config",
      payload: {
        operation: "put",
        values: [{ type: "mcp", key: id, value: JSON.stringify({ url: everything.url, "remote-name": "trigger-long-running-operation" }) }],
      },
    });
    expect(put.json().error).toBeUndefined();
    const call = async () =>
      gw.runtime.http.inject({
        method: "POST",
        url: "/api/v1/flow/default/service/mcp-tool",
        payload: { name: id, parameters: JSON.stringify({ duration: 6, steps: 2 }) },
      });
    // mcp-tool reads config on a push; until it has the entry it answers "no mcp tool" (also not a timeout).
    let response = await call();
    for (let i = 0; i < 20 && /no mcp tool/.test(JSON.stringify(response.json())); i++) {
      await sleep(250);
      response = await call();
    }
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.error.type).toBe("mcp-tool-error");
    expect(body.error.message).toContain(`MCP server at ${everything.url}`);
    expect(body.error.message).toMatch(/2000 ms|timed out/);
  });
});
