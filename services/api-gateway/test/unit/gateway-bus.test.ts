import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BaseEnv } from "@toolmesh/base";
import { FakeConfig, MemoryBus } from "@toolmesh/base/testing";
import { FlowRequest, type FlowResponse, ServiceError } from "@toolmesh/schema";
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

type FlowReply = Partial<FlowResponse> & Pick<FlowResponse, "error">;

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

  it("forwards TrustGraph's flow operations to its flow-svc's queue, dashed names made the wire's and back", async () => {
    // A stand-in for TrustGraph's flow-svc on request:<tenant>:flow:default, answering from FlowRequest's wire form.
    const seen: FlowRequest[] = [];
    const flowSvc = bus.runtime("flow-svc", BaseEnv.parse({ HTTP_PORT: "0" }));
    await flowSvc.serve({
      ...flowSvc.topics.workspaceFlow("default"),
      subscription: "flow-svc",
      requestSchema: FlowRequest,
      errorReply: (error): FlowReply => ({ error }),
      handler: async (request): Promise<FlowReply> => {
        seen.push(request);
        if (request.operation === "list-flows") return { error: null, flow_ids: ["default"], blueprint_names: [] };
        if (request.operation === "get-blueprint") return { error: null, blueprint_definition: '{"interfaces": {}}' };
        throw new ServiceError("flow-error", `Blueprint ${request.blueprint_name} does not exist`);
      },
    });
    expect((await post("/flow", { operation: "list-flows" })).json()).toEqual({ "flow-ids": ["default"], "blueprint-names": [] });
    expect((await post("/flow", { operation: "get-blueprint", "blueprint-name": "b" })).json()).toEqual({
      "blueprint-definition": '{"interfaces": {}}',
    });
    // flow-svc's error reaches the caller (TrustGraph's own gateway drops it).
    const failed = await post("/flow", { operation: "start-flow", "blueprint-name": "nope", "flow-id": "f", description: "d" });
    expect(failed.statusCode).toBe(200);
    expect(failed.json()).toEqual({ error: { type: "flow-error", message: "Blueprint nope does not exist" } });
    expect(seen.at(-1)).toMatchObject({ operation: "start-flow", blueprint_name: "nope", flow_id: "f", description: "d" });
    // TrustGraph's registry: an operation the flow service does not have is the gateway's 400.
    expect((await post("/flow", { operation: "drop-everything" })).json()).toEqual({ error: "unknown operation" });
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
