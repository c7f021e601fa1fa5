import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceRuntime } from "@toolmesh/base";
import { useBroker, waitFor } from "@toolmesh/test-support";
import {
  type RunningGateway,
  TestTool,
  registerToolService,
  startConfigService,
  startGateway,
  startTools,
  toolRequest,
} from "./fixture.js";

let started = 0;
const slow = new TestTool(async (args) => {
  started += 1;
  await new Promise((resolve) => setTimeout(resolve, Number(args.ms ?? 1_000)));
  return "slow done";
});
let config: { stop: () => Promise<void> };
let tools: ServiceRuntime;
let gw: RunningGateway;

beforeAll(async () => {
  const broker = await useBroker();
  config = await startConfigService(broker);
  tools = await startTools(broker, [slow]);
  gw = await startGateway(broker);
  await registerToolService(gw, slow.id, slow.topic);
});

afterAll(async () => {
  await gw?.runtime.stop();
  await tools?.stop();
  await config?.stop();
});

describe("graceful shutdown", () => {
  it("finishes a request in flight, refuses new ones and reports not ready meanwhile", async () => {
    const url = `/api/v1/flow/default/service/${slow.id}`;
    const inFlight = gw.runtime.http.inject({ method: "POST", url, payload: toolRequest() });
    await waitFor(() => started > 0, { description: "the slow call to start" });
    const stopping = gw.runtime.stop();
    expect((await gw.runtime.http.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(503);
    const refused = await gw.runtime.http.inject({ method: "POST", url, payload: toolRequest() });
    expect(refused.statusCode).toBe(503);
    expect(refused.json().error.type).toBe("unavailable");
    const response = await inFlight;
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([{ response: "slow done", end_of_stream: true }]);
    await stopping;
  });

  it("answers a call still running a little before SHUTDOWN_TIMEOUT_MS runs out 'unavailable ... retry', and stops in time", async () => {
    // SHUTDOWN_TIMEOUT_MS 2 s winds down at 1.6 s (a fifth before); the call would take 8 s.
    const short = await startGateway(await useBroker(), { SHUTDOWN_TIMEOUT_MS: "2000" });
    try {
      await registerToolService(short, slow.id, slow.topic);
      const before = started;
      const url = `/api/v1/flow/default/service/${slow.id}`;
      const inFlight = short.runtime.http.inject({ method: "POST", url, payload: toolRequest({ ms: 8_000 }) });
      await waitFor(() => started > before, { description: "the slow call to start" });
      const stopBegan = Date.now();
      const [response] = await Promise.all([inFlight, short.runtime.stop()]);
      const stoppedAfterMs = Date.now() - stopBegan;
      expect(response.statusCode).toBe(503);
      expect(response.json().error).toEqual({ type: "unavailable", message: "the gateway is shutting down; retry" });
      // At the wind-down (1.6 s), inside the 2 s the process has, not after the tool's 8 s.
      expect(stoppedAfterMs).toBeGreaterThanOrEqual(1_500);
      expect(stoppedAfterMs).toBeLessThan(2_000);
    } finally {
      await short.runtime.stop();
    }
  });
});
