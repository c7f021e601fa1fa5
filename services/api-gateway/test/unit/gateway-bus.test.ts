import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BaseEnv } from "@toolmesh/base";
import { FakeConfig, MemoryBus } from "@toolmesh/base/testing";
import { waitFor } from "@toolmesh/test-support";
import { buildGateway, gatewayRuntimeOptions } from "../../src/app.js";
import { loadEnv } from "../../src/env.js";
import { type RunningGateway, brokenTool, registerToolService, textTool, toolRequest } from "../integration/fixture.js";

// The gateway as main.ts builds it, on the in-memory bus with a fake config service and tool services on the
// same bus: REST calls reach tool services and config over the bus, bad bodies get the one error shape.
const bus = new MemoryBus();
const text = textTool();
const broken = brokenTool();
let config: FakeConfig;
let gw: RunningGateway;

const post = (url: string, payload: unknown) =>
  gw.runtime.http.inject({ method: "POST", url: `/api/v1${url}`, payload: payload as object });
const callTool = (service: string, payload: unknown) => post(`/flow/default/service/${service}`, payload);

beforeAll(async () => {
  config = await FakeConfig.start(bus);
  const tools = bus.runtime("tools", BaseEnv.parse({ HTTP_PORT: "0" }));
  for (const tool of [text, broken]) await tool.start(tools, { announce: false });
  const env = loadEnv({ HTTP_PORT: "0" });
  const runtime = bus.runtime("api-gateway", env, gatewayRuntimeOptions(env));
  const gateway = await buildGateway(runtime, env);
  await waitFor(() => gateway.config.ready && gateway.workspaceRegistry.ready, {
    timeoutMs: 2_000,
    intervalMs: 10,
    description: "the gateway's config views",
  });
  gw = { runtime, gateway };
  // Through the gateway's own config route: the fake config service stores, pushes, and the gateway reloads.
  for (const tool of [text, broken]) await registerToolService(gw, tool.id, tool.topic);
});
afterAll(() => bus.close());

describe("api-gateway on the in-memory bus", () => {
  it("calls a tool service registered through its config route, and passes the tool's own error through", async () => {
    const response = await callTool(text.id, toolRequest({ topic: "cats" }));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([{ response: "hello alice, about cats", end_of_stream: true }]);
    expect((await callTool(broken.id, toolRequest())).json()).toEqual([
      { error: { type: "tool-service-error", message: "the tool broke" }, response: "", end_of_stream: true },
    ]);
  });

  it("answers TrustGraph's /api/v1/config from the config service on the bus", async () => {
    const response = await post("/config", { operation: "get", keys: [{ type: "tool-service", key: text.id }] });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.version).toBe(config.version);
    expect(body.values.map((v: { value: string }) => JSON.parse(v.value))).toEqual([{ id: text.id, topic: text.topic }]);
    expect((await post("/config", { operation: "list", type: "tool-service" })).json().directory).toEqual([broken.id, text.id].sort());
  });

  it("forgets a tool service whose descriptor is deleted from config", async () => {
    await config.delete("tool-service", broken.id);
    const gone = await waitFor(async () => ((await callTool(broken.id, toolRequest())).statusCode === 404 ? true : undefined), {
      timeoutMs: 2_000,
      intervalMs: 10,
      description: "the deleted descriptor to disappear",
    });
    expect(gone).toBe(true);
    expect((await callTool(broken.id, toolRequest())).json()).toEqual({
      error: "unknown kind",
      detail: expect.stringContaining(`no tool-service descriptor has id '${broken.id}'`),
    });
  });

  it("refuses bad bodies in the one error shape and keeps serving", async () => {
    const badTool = await callTool(text.id, { user: 5, arguments: "{not json" });
    expect(badTool.statusCode).toBe(400);
    expect(badTool.json().error.type).toBe("bad-request");
    expect(badTool.json().error.message).toMatch(/^invalid tool-service request: user: .+; arguments: not valid JSON/);
    const notJson = await gw.runtime.http.inject({
      method: "POST",
      url: "/api/v1/config",
      headers: { "content-type": "application/json" },
      payload: "{oops",
    });
    expect([notJson.statusCode, notJson.json()]).toEqual([400, { error: "invalid json" }]);
    expect((await post("/config", { keys: [] })).json()).toEqual({ error: "missing operation" });
    expect((await post("/config", { operation: "get", workspace: "nowhere" })).json()).toEqual({ error: "workspace not found" });
    const agent = await callTool("agent", { question: "" });
    expect([agent.statusCode, agent.json().error]).toEqual([
      200,
      { type: "bad-request", message: expect.stringContaining("question: question is required") },
    ]);
    expect((await callTool(text.id, toolRequest({ topic: "still here" }))).json()[0].response).toBe("hello alice, about still here");
  });
});
