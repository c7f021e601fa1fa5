import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceRuntime } from "@toolmesh/base";
import { useBroker, waitFor, requestTopic, responseTopic } from "@toolmesh/test-support";
import {
  type RunningGateway,
  SocketClient,
  registerDescriptor,
  registerToolService,
  startConfigService,
  startGateway,
  startTools,
  textTool,
  toolRequest,
  unique,
} from "./fixture.js";

const TOKEN = "gateway-test-token";
const bearer = { authorization: `Bearer ${TOKEN}` };
const text = textTool();
let config: { stop: () => Promise<void> };
let tools: ServiceRuntime;
let secured: RunningGateway;
let impatient: RunningGateway;
let socketUrl: string;

beforeAll(async () => {
  const broker = await useBroker();
  config = await startConfigService(broker);
  tools = await startTools(broker, [text]);
  secured = await startGateway(broker, { GATEWAY_TOKEN: TOKEN });
  // Allows a tenant that does not exist, to reach the subscription's own failure.
  impatient = await startGateway(broker, { GATEWAY_REQUEST_TIMEOUT_MS: "1500", TOOLMESH_ALLOWED_TENANTS: "no-such-tenant" });
  await registerToolService(secured, text.id, text.topic, bearer);
  socketUrl = `${(await secured.runtime.listen()).replace(/^http/, "ws")}/api/v1/socket`;
});

afterAll(async () => {
  await secured?.runtime.stop();
  await impatient?.runtime.stop();
  await tools?.stop();
  await config?.stop();
});

describe("bearer token (GATEWAY_TOKEN set)", () => {
  const call = (headers: Record<string, string>) =>
    secured.runtime.http.inject({
      method: "POST",
      url: `/api/v1/flow/default/service/${text.id}`,
      headers,
      payload: toolRequest({ topic: "auth" }),
    });

  it("refuses REST without the token or with a wrong one (401), serves it with the token", async () => {
    const missing = await call({});
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toEqual({ error: "auth failure" });
    expect(missing.headers["www-authenticate"]).toMatch(/^Bearer/);
    const wrong = await call({ authorization: "Bearer nope" });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ error: "auth failure" });
    const ok = await call(bearer);
    expect(ok.statusCode).toBe(200);
    expect(ok.json()[0].response).toBe("hello alice, about auth");
  });

  it("does not take ?token= on REST, and guards the OpenAPI document too", async () => {
    const viaQuery = await secured.runtime.http.inject({
      method: "POST",
      url: `/api/v1/flow/default/service/${text.id}?token=${TOKEN}`,
      payload: toolRequest(),
    });
    expect(viaQuery.statusCode).toBe(401);
    expect((await secured.runtime.http.inject({ method: "GET", url: "/api/v1/openapi.json" })).statusCode).toBe(401);
    const doc = await secured.runtime.http.inject({ method: "GET", url: "/api/v1/openapi.json", headers: bearer });
    expect(doc.json().security).toEqual([{ bearer: [] }]);
    // The 401 above, as the document describes it: TrustGraph's bare message.
    const unauthorized = doc.json().paths["/api/v1/flow/{flow}/service/{service}"].post.responses["401"];
    expect(unauthorized.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/MessageError" });
  });

  it("leaves /healthz, /readyz and /metrics open", async () => {
    for (const url of ["/healthz", "/readyz", "/metrics"]) {
      expect((await secured.runtime.http.inject({ method: "GET", url })).statusCode).toBe(200);
    }
  });

  it("refuses REST on TrustGraph's config path without the token (401 auth failure)", async () => {
    const missing = await secured.runtime.http.inject({
      method: "POST",
      url: "/api/v1/config",
      payload: { operation: "list", type: "tool" },
    });
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toEqual({ error: "auth failure" });
    const ok = await secured.runtime.http.inject({
      method: "POST",
      url: "/api/v1/config",
      headers: bearer,
      payload: { operation: "list", type: "tool" },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).not.toHaveProperty("error");
  });

  it("takes TrustGraph's auth frame on the socket: requests before it auth-required, a wrong token auth-failed (socket open), the token auth-ok", async () => {
    const client = await SocketClient.connect(socketUrl);
    client.send({ id: "early", service: text.id, request: toolRequest({ topic: "early" }) });
    expect(await client.answer("early")).toEqual([
      { id: "early", error: { type: "auth-required", message: "auth failure" }, complete: true },
    ]);
    client.send({ type: "auth", token: "wrong-token" });
    client.send({ type: "auth" });
    client.send({ type: "auth", token: 42 });
    await waitFor(() => client.frames.filter((f) => f.type === "auth-failed").length === 3, { description: "three auth-failed frames" });
    expect(client.frames.filter((f) => f.type !== undefined).slice(0, 3)).toEqual(
      Array(3).fill({ type: "auth-failed", error: "auth failure" }),
    );
    client.send({ type: "auth", token: TOKEN });
    await waitFor(() => client.frames.some((f) => f.type === "auth-ok"), { description: "auth-ok" });
    expect(client.frames.find((f) => f.type === "auth-ok")).toEqual({ type: "auth-ok", default_workspace: "default" });
    client.send({ id: "after", service: text.id, request: toolRequest({ topic: "frame" }) });
    expect((await client.answer("after"))[0]).toMatchObject({ response: { response: "hello alice, about frame" }, complete: true });
    client.close();
  });

  it("still takes the token on the socket's upgrade (header or ?token=)", async () => {
    for (const client of [
      await SocketClient.connect(socketUrl, { headers: bearer }),
      await SocketClient.connect(`${socketUrl}?token=${TOKEN}`),
    ]) {
      client.send({ id: "a", service: text.id, request: toolRequest({ topic: "socket" }) });
      const [frame] = await client.answer("a");
      expect(frame).toMatchObject({ response: { response: "hello alice, about socket" }, complete: true });
      client.close();
    }
  });
});

describe("timeouts", () => {
  it("answers 504 naming the topic when nobody serves a tool service, and keeps serving", async () => {
    const id = unique("gateway-test-nobody");
    const topic = unique("gateway-test-unserved");
    await registerToolService(impatient, id, topic);
    const started = Date.now();
    const response = await impatient.runtime.http.inject({
      method: "POST",
      url: `/api/v1/flow/default/service/${id}`,
      payload: toolRequest(),
    });
    expect(response.statusCode).toBe(504);
    const { error } = response.json();
    expect(error.type).toBe("timeout");
    // The cause: which service, what it did not do in what time (and which setting says so), and where.
    expect(error.message).toMatch(
      new RegExp(
        `^tool service '${id}' sent no reply within 1500 ms \\(GATEWAY_REQUEST_TIMEOUT_MS\\): request \\S+ went to ${requestTopic(topic)}`,
      ),
    );
    expect(Date.now() - started).toBeLessThan(10_000);

    // The socket says the same.
    const address = await impatient.runtime.listen();
    const client = await SocketClient.connect(`${address.replace(/^http/, "ws")}/api/v1/socket`);
    client.send({ id: "late", service: id, request: toolRequest() });
    const [frame] = await client.answer("late");
    expect(frame).toMatchObject({ error: { type: "timeout" }, complete: true });
    const socketMessage = (frame?.error as { message: string }).message;
    expect(socketMessage.replace(/request \S+ went/, "")).toBe(error.message.replace(/request \S+ went/, ""));
    client.close();

    const ok = await impatient.runtime.http.inject({
      method: "POST",
      url: `/api/v1/flow/default/service/${text.id}`,
      payload: toolRequest({ topic: "after timeout" }),
    });
    expect(ok.json()[0].response).toBe("hello alice, about after timeout");
  });

  it("answers 503 'not running' long before its timeout when the broker shows no instance of the service", async () => {
    // The secured gateway waits GATEWAY_REQUEST_TIMEOUT_MS (30 s by default); after REQUEST_SERVICE_CHECK_MS
    // (2 s) with no reply it reads the broker's topic stats: no consumer of the request topic, no producer on the response one.
    const id = unique("gateway-test-stopped");
    const topic = unique("gateway-test-stopped-topic");
    await registerToolService(secured, id, topic, bearer);
    const started = Date.now();
    const response = await secured.runtime.http.inject({
      method: "POST",
      url: `/api/v1/flow/default/service/${id}`,
      headers: bearer,
      payload: toolRequest(),
    });
    console.log(`not running: HTTP ${response.statusCode} after ${Date.now() - started} ms (timeout 30000 ms): ${response.body}`);
    expect(response.statusCode).toBe(503);
    const { error } = response.json();
    expect(error.type).toBe("unavailable");
    expect(error.message).toMatch(
      new RegExp(
        `^tool service '${id}' is not running: nothing consumes ${requestTopic(topic)} and nothing publishes on ${responseTopic(topic)}: request \\S+ had no reply after 2000 ms$`,
      ),
    );
  });

  it("answers 503 when a descriptor's topic cannot be subscribed to, and still stops promptly", async () => {
    const id = unique("gateway-test-nowhere");
    const value = JSON.stringify({
      id,
      "request-queue": "non-persistent://no-such-tenant/a/req",
      "response-queue": "non-persistent://no-such-tenant/a/res",
    });
    await registerDescriptor(impatient, id, value);
    const response = await impatient.runtime.http.inject({
      method: "POST",
      url: `/api/v1/flow/default/service/${id}`,
      payload: toolRequest(),
    });
    expect(response.statusCode).toBe(503);
    expect(response.json().error).toEqual({
      type: "unavailable",
      message: expect.stringContaining("could not subscribe to non-persistent://no-such-tenant/a/res within 1500 ms"),
    });
    // afterAll stops this gateway: a subscription still trying to connect must not hold shutdown up.
  });
});
