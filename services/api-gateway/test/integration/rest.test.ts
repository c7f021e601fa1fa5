import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceRuntime } from "@toolmesh/base";
import { useBroker, requestTopic } from "@toolmesh/test-support";
import {
  type RunningGateway,
  brokenTool,
  registerToolService,
  startConfigService,
  startGateway,
  startTools,
  streamTool,
  textTool,
  toolRequest,
} from "./fixture.js";

const text = textTool();
const stream = streamTool();
const broken = brokenTool();
let config: { stop: () => Promise<void> };
let tools: ServiceRuntime;
let gw: RunningGateway;

const post = (service: string, payload: unknown, flow = "default") =>
  gw.runtime.http.inject({ method: "POST", url: `/api/v1/flow/${flow}/service/${service}`, payload: payload as object });

beforeAll(async () => {
  const broker = await useBroker();
  config = await startConfigService(broker);
  tools = await startTools(broker, [text, stream, broken]);
  gw = await startGateway(broker);
  for (const tool of [text, stream, broken]) await registerToolService(gw, tool.id, tool.topic);
});

afterAll(async () => {
  await gw?.runtime.stop();
  await tools?.stop();
  await config?.stop();
});

describe("REST: POST /api/v1/flow/:flow/service/:service", () => {
  it("answers a tool service with the array of its replies (one for a plain result)", async () => {
    const response = await post(text.id, { user: "alice", config: '{"style":"pun"}', arguments: '{"topic":"cats"}' });
    expect(response.statusCode).toBe(200);
    // Absent, not null: TrustGraph's client reads any `error` key as a failure.
    expect(response.json()).toEqual([{ response: "hello alice, about cats", end_of_stream: true }]);
  });

  it("accepts TrustGraph's form without user; an unknown flow is TrustGraph's 'Invalid flow'", async () => {
    const response = await post(text.id, { config: "", arguments: '{"topic":"dogs"}' });
    expect(response.json()).toEqual([{ response: "hello , about dogs", end_of_stream: true }]);
    const other = await post(text.id, { config: "", arguments: '{"topic":"dogs"}' }, "my-flow");
    expect(other.statusCode).toBe(200);
    expect(other.json()).toEqual({ error: "Invalid flow default/my-flow" });
  });

  it("returns a 3-chunk stream as a 3-element array in order", async () => {
    const response = await post(stream.id, toolRequest());
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([
      { response: "one ", end_of_stream: false },
      { response: "two ", end_of_stream: false },
      { response: "three", end_of_stream: true },
    ]);
  });

  it("passes a tool's own error through as its answer (200)", async () => {
    const response = await post(broken.id, toolRequest());
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([
      { error: { type: "tool-service-error", message: "the tool broke" }, response: "", end_of_stream: true },
    ]);
  });

  it("answers a fixed single-reply service (config) with its reply object, on the flow path and TrustGraph's /config", async () => {
    const global = await gw.runtime.http.inject({
      method: "POST",
      url: "/api/v1/config",
      payload: { operation: "get", keys: [{ type: "tool-service", key: text.id }] },
    });
    expect(global.statusCode).toBe(200);
    expect(Object.keys(global.json())).toEqual(["version", "values", "directory", "config"]);
    const response = await post("config", { operation: "get", keys: [{ type: "tool-service", key: text.id }] });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).not.toHaveProperty("error");
    expect(body).toEqual(global.json());
    expect(body.version).toBeGreaterThan(0);
    expect(JSON.parse(body.values[0].value)).toMatchObject({ id: text.id, topic: text.topic });
  });

  it("404s an unknown service as TrustGraph's unknown kind, the detail naming the fixed services and the missing descriptor", async () => {
    const response = await post("no-such-service", toolRequest());
    expect(response.statusCode).toBe(404);
    const { error, detail } = response.json();
    expect(error).toBe("unknown kind");
    expect(detail).toContain("config, mcp-tool, agent, agent-runs, tool-registry");
    expect(detail).toContain("no tool-service descriptor has id 'no-such-service'");
  });

  it("400s a body that is not the service's request, with the issues in one line", async () => {
    const response = await post(text.id, { user: 5, arguments: "{not json" });
    expect(response.statusCode).toBe(400);
    const { error } = response.json();
    expect(error.type).toBe("bad-request");
    expect(error.message).toMatch(/^invalid tool-service request: user: .+; arguments: not valid JSON/);
    expect(error.message).not.toContain("\n");
    // TrustGraph's kinds answer request errors as 200 {"error": {type, message}}, as its requestor does.
    const agent = await post("agent", { question: "" });
    expect(agent.statusCode).toBe(200);
    expect(agent.json().error).toEqual({ type: "bad-request", message: expect.stringContaining("question: question is required") });
  });

  it("answers a body that is not JSON as TrustGraph's flow path does (200, the parse error as a string)", async () => {
    const response = await gw.runtime.http.inject({
      method: "POST",
      url: `/api/v1/flow/default/service/${text.id}`,
      headers: { "content-type": "application/json" },
      payload: "{oops",
    });
    expect(response.statusCode).toBe(200);
    expect(typeof response.json().error).toBe("string");
  });

  it("keeps serving after bad input", async () => {
    await post("no-such-service", {});
    await post(text.id, { config: 1 });
    const response = await post(text.id, toolRequest({ topic: "still here" }));
    expect(response.json()[0].response).toBe("hello alice, about still here");
  });

  it("414s an over-long service name and 400s a malformed path in the one error shape, echoing neither", async () => {
    const long = await post(`s${"x".repeat(500)}`, toolRequest());
    expect(long.statusCode).toBe(414);
    expect(long.json()).toEqual({ error: { type: "bad-request", message: "a path segment is too long" } });
    const malformed = await post("%zz", toolRequest());
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toEqual({
      error: { type: "bad-request", message: "the request path is not a valid URL (bad percent-encoding)" },
    });
  });

  it("404s an unknown /api/v1 path in the one error shape", async () => {
    const response = await gw.runtime.http.inject({ method: "GET", url: "/api/v1/nothing" });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: { type: "not-found", message: "no route GET /api/v1/nothing" } });
  });
});

describe("health and description", () => {
  it("is ready once config is loaded, and says so", async () => {
    const response = await gw.runtime.http.inject({ method: "GET", url: "/readyz" });
    expect(response.statusCode).toBe(200);
    expect(response.json().checks).toEqual({ accepting: true, broker: true, config: true, "config:__workspaces__": true });
  });

  it("serves an OpenAPI 3.1 document with the route, the socket and schemas from zod", async () => {
    const response = await gw.runtime.http.inject({ method: "GET", url: "/api/v1/openapi.json" });
    expect(response.statusCode).toBe(200);
    const doc = JSON.parse(response.body);
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual([
      "/api/v1/{kind}",
      "/api/v1/flow/{flow}/service/{service}",
      "/api/v1/socket",
      "/api/v1/openapi.json",
    ]);
    expect(Object.keys(doc.paths["/api/v1/{kind}"].post.responses)).toEqual(["200", "400", "404"]);
    expect(doc.components.schemas.SocketAuthFrame.properties.type).toEqual({ type: "string", const: "auth" });
    // A JSON-encoded string; null reads as {} (TrustGraph's gateway sends null when its caller gave none).
    expect(doc.components.schemas.ToolServiceRequest.properties.arguments).toEqual({ type: ["string", "null"] });
    expect(doc.components.schemas.AgentRequest.required).toEqual(["question"]);
    expect(doc.components.schemas.Error.properties.error.required).toEqual(["type", "message"]);
    expect(doc.security).toBeUndefined();
  });

  it("counts forwarded requests in /metrics", async () => {
    const metrics = (await gw.runtime.http.inject({ method: "GET", url: "/metrics" })).body;
    expect(metrics).toContain(`toolmesh_requests_total{topic="${requestTopic(text.topic)}",outcome="ok",service="api-gateway"}`);
  });
});
