import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPLY_SESSIONS } from "@toolmesh/pulsar";
import type { ServiceRuntime } from "@toolmesh/base";
import { totalClients, useBroker, waitFor, requestTopic, responseTopic } from "@toolmesh/test-support";
import { type RunningGateway, TestTool, startConfigService, startGateway, startTools, toolRequest } from "./fixture.js";

// Issue 12, item 2: the gateway kept one producer and one consumer per tool topic forever (200 of each on
// deleted topics after 2 rounds of 100 descriptors). Counted here as the broker sees them: producers on the
// tools' request topics and consumers on their response topics are the gateway's alone (the tools consume
// requests and produce responses). A client that has had a reply from its tool (served by serve(), which
// numbers its replies) reads them with REPLY_SESSIONS sessions, opened on that first reply.
const echo = () => new TestTool(async (args) => `echo ${String(args.n)}`);
const removed = Array.from({ length: 20 }, echo);
const idled = Array.from({ length: 5 }, echo);
const bounded = Array.from({ length: 6 }, echo);

let webServiceUrl: string;
let config: { stop: () => Promise<void> };
let tools: ServiceRuntime;
let gw: RunningGateway;
let idle: RunningGateway;
let small: RunningGateway;

/** What the broker has open for callers of these tools: producers of requests, consumers of replies. */
async function callerClients(of: TestTool[]): Promise<{ producers: number; consumers: number }> {
  const requests = await totalClients(
    webServiceUrl,
    of.map((t) => requestTopic(t.topic)),
  );
  const responses = await totalClients(
    webServiceUrl,
    of.map((t) => responseTopic(t.topic)),
  );
  return { producers: requests.producers, consumers: responses.consumers };
}

const settlesAt = (of: TestTool[], expected: { producers: number; consumers: number }, description: string) =>
  waitFor(
    async () => {
      const now = await callerClients(of);
      return now.producers === expected.producers && now.consumers === expected.consumers ? now : undefined;
    },
    { timeoutMs: 20_000, intervalMs: 250, description },
  );

async function configure(operation: "put" | "delete", of: TestTool[]) {
  const payload =
    operation === "put"
      ? { operation, values: of.map((t) => ({ type: "tool-service", key: t.id, value: JSON.stringify({ id: t.id, topic: t.topic }) })) }
      : { operation, keys: of.map((t) => ({ type: "tool-service", key: t.id })) };
  const response = await gw.runtime.http.inject({ method: "POST", url: "/api/v1/flow/default/service/config", payload });
  if (response.json().error) throw new Error(`config ${operation}: ${response.body}`);
  const present = operation === "put";
  for (const { gateway } of [gw, idle, small]) {
    await waitFor(() => of.every((t) => (gateway.config.values("tool-service")[t.id] !== undefined) === present), {
      timeoutMs: 15_000,
      description: `descriptors ${operation}`,
    });
  }
}

async function invokeAll(via: RunningGateway, of: TestTool[]) {
  const responses = await Promise.all(
    of.map((t, n) => via.runtime.http.inject({ method: "POST", url: `/api/v1/flow/default/service/${t.id}`, payload: toolRequest({ n }) })),
  );
  responses.forEach((response, n) => expect(response.json()).toEqual([{ response: `echo ${n}`, end_of_stream: true }]));
}

beforeAll(async () => {
  const broker = await useBroker();
  ({ webServiceUrl } = broker);
  config = await startConfigService(broker);
  tools = await startTools(broker, [...removed, ...idled, ...bounded]);
  gw = await startGateway(broker);
  idle = await startGateway(broker, { GATEWAY_TOOL_CLIENT_IDLE_MS: "1000" });
  small = await startGateway(broker, { GATEWAY_MAX_TOOL_CLIENTS: "3" });
}, 120_000);

afterAll(async () => {
  for (const g of [gw, idle, small]) await g?.runtime.stop();
  await tools?.stop();
  await config?.stop();
});

describe("tool-service clients", () => {
  it("are released when their descriptors are deleted: broker counts back to the baseline", async () => {
    const baseline = await callerClients(removed);
    expect(baseline).toEqual({ producers: 0, consumers: 0 });
    await configure("put", removed);
    await invokeAll(gw, removed);
    await settlesAt(removed, { producers: 20, consumers: 20 * REPLY_SESSIONS }, "a client per tool");

    await configure("delete", removed);
    await settlesAt(removed, baseline, "the gateway's producers and consumers on deleted tools to go");
    expect(gw.gateway.dispatcher.toolClientCount).toBe(0);
  });

  it("are released after GATEWAY_TOOL_CLIENT_IDLE_MS unused, and made again on the next call", async () => {
    await configure("put", idled);
    await invokeAll(idle, idled);
    // Read at once, inside the 1 s idle window: each client has its first reply session; the others may
    // still be opening, so no exact count of consumers.
    const made = await callerClients(idled);
    expect(made.producers).toBe(5);
    expect(made.consumers).toBeGreaterThanOrEqual(5);
    await settlesAt(idled, { producers: 0, consumers: 0 }, "idle clients to be released");
    expect(idle.gateway.dispatcher.toolClientCount).toBe(0);
    await invokeAll(idle, idled);
  });

  it("are at most GATEWAY_MAX_TOOL_CLIENTS, the least recently used going first", async () => {
    await configure("put", bounded);
    for (const [n, tool] of bounded.entries()) {
      const response = await small.runtime.http.inject({
        method: "POST",
        url: `/api/v1/flow/default/service/${tool.id}`,
        payload: toolRequest({ n }),
      });
      expect(response.json()[0].response).toBe(`echo ${n}`);
    }
    await settlesAt(bounded, { producers: 3, consumers: 3 * REPLY_SESSIONS }, "three clients left");
    expect(await callerClients(bounded.slice(3))).toEqual({ producers: 3, consumers: 3 * REPLY_SESSIONS });
    expect(small.gateway.dispatcher.toolClientCount).toBe(3);
  });
});
