import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceRuntime } from "@toolmesh/base";
import { useBroker, waitFor } from "@toolmesh/test-support";
import {
  type RunningGateway,
  SocketClient,
  TestTool,
  registerToolService,
  startConfigService,
  startGateway,
  startTools,
  toolRequest,
} from "./fixture.js";

// Issue 12, item 1: the HTTP server's idle timeout used to be a fixed 30 s, equal to the gateway's own reply
// timeout, so any REST call that lasted 30 s lost its socket (`curl: (52)`) instead of getting its answer.
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Answers once, after 35 s: longer than the old fixed idle timeout. */
const slow = new TestTool(async () => {
  await sleep(35_000);
  return "worth the wait";
});

/** Like an agent run: a message, then 12 s of thinking between messages, 36 s in all. */
const thinker = new TestTool(async function* () {
  yield "thought ";
  await sleep(12_000);
  yield "observation ";
  await sleep(12_000);
  yield "more ";
  await sleep(12_000);
  yield "answer";
});

let config: { stop: () => Promise<void> };
let tools: ServiceRuntime;
/** Waits up to 60 s for a reply. */
let patient: RunningGateway;
/** Waits at most 20 s for any reply, so its idle timeout is the 30 s floor: shorter than the thinker's run. */
let brisk: RunningGateway;

const addresses = new Map<RunningGateway, string>();
const post = async (gw: RunningGateway, service: string) => {
  const response = await fetch(`${addresses.get(gw)}/api/v1/flow/default/service/${service}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(toolRequest()),
  });
  return { status: response.status, body: (await response.json()) as Array<{ response: string }> };
};

beforeAll(async () => {
  const broker = await useBroker();
  config = await startConfigService(broker);
  tools = await startTools(broker, [slow, thinker]);
  patient = await startGateway(broker, { GATEWAY_REQUEST_TIMEOUT_MS: "60000" });
  brisk = await startGateway(broker, {
    GATEWAY_REQUEST_TIMEOUT_MS: "20000",
    GATEWAY_AGENT_TIMEOUT_MS: "20000",
    GATEWAY_MCP_TOOL_TIMEOUT_MS: "20000",
  });
  for (const gw of [patient, brisk]) addresses.set(gw, await gw.runtime.listen());
  await registerToolService(patient, slow.id, slow.topic);
  await registerToolService(patient, thinker.id, thinker.topic);
  // Both gateways read the same config; the brisk one needs to have seen the thinker's descriptor too.
  await waitFor(() => brisk.gateway.config.values("tool-service")[thinker.id] !== undefined, {
    timeoutMs: 15_000,
    description: "the descriptor in the second gateway",
  });
});

afterAll(async () => {
  await patient?.runtime.stop();
  await brisk?.runtime.stop();
  await tools?.stop();
  await config?.stop();
});

describe("calls longer than the old 30 s idle timeout", () => {
  it("answers a 35 s REST call, a 36 s REST stream and a 36 s socket stream (all at once)", async () => {
    const socket = await SocketClient.connect(`${addresses.get(brisk)!.replace(/^http/, "ws")}/api/v1/socket`);
    socket.send({ id: "run", service: thinker.id, flow: "default", request: toolRequest() });
    const [single, stream, frames] = await Promise.all([post(patient, slow.id), post(brisk, thinker.id), socket.answer("run", 60_000)]);
    socket.close();

    expect(single.status).toBe(200);
    expect(single.body).toEqual([{ response: "worth the wait", end_of_stream: true }]);
    // Every gap (12 s) is within the gateway's 20 s, the whole (36 s) is beyond its 30 s idle timeout: each
    // reply keeps the connection alive.
    expect(stream.status).toBe(200);
    expect(stream.body.map((r) => r.response).join("")).toBe("thought observation more answer");
    expect(frames.map((f) => (f.response as { response: string }).response).join("")).toBe("thought observation more answer");
    expect(frames.at(-1)?.complete).toBe(true);
  }, 90_000);
});
