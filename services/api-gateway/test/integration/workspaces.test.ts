import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WorkspaceRegistry } from "@toolmesh/schema";
import { type Broker, useBroker, waitFor, testTopics } from "@toolmesh/test-support";
import { type RunningGateway, SocketClient, startConfigService, startGateway, unique } from "./fixture.js";

// TrustGraph's gateway checks the caller's workspace against the registered ones before anything else
// reaches a service (REST 404, socket `workspace-not-found`), and sends global config operations to the
// workspace's own queue (`request:tg:config:<ws>`). toolmesh's gateway does the same against the real
// config service.
let broker: Broker;
let config: { stop: () => Promise<void> };
let gw: RunningGateway;
let client: SocketClient;
const acme = unique("acme");

const global = (payload: object) => gw.runtime.http.inject({ method: "POST", url: "/api/v1/config", payload });
/** toolmesh's own config path: the system queue, the workspace from the body, no registry check. */
const system = (payload: object) => gw.runtime.http.inject({ method: "POST", url: "/api/v1/flow/default/service/config", payload });

/** Who publishes on a topic now (the broker's admin API). */
async function publishers(topic: string): Promise<number> {
  const response = await fetch(`${broker.webServiceUrl}/admin/v2/${topic.replace("://", "/")}/stats`);
  if (!response.ok) return 0;
  return ((await response.json()) as { publishers: unknown[] }).publishers.length;
}

beforeAll(async () => {
  broker = await useBroker();
  config = await startConfigService(broker);
  gw = await startGateway(broker);
  const address = await gw.runtime.listen();
  client = await SocketClient.connect(`${address.replace(/^http/, "ws")}/api/v1/socket`);
});

afterAll(async () => {
  client?.close();
  await gw?.runtime.stop();
  await config?.stop();
});

describe("workspaces on the TrustGraph surfaces", () => {
  it("404s REST config for a workspace that is not registered, before it reaches the config service", async () => {
    const response = await global({ operation: "list", type: "tool", workspace: acme });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: "workspace not found" });
    expect(await publishers(testTopics().workspaceConfig(acme).requestTopic)).toBe(0);
  });

  it("answers the socket's envelope for an unknown workspace with workspace-not-found, global and flow services alike", async () => {
    client.send({ id: "g", service: "config", workspace: acme, request: { operation: "list", type: "tool" } });
    client.send({ id: "f", service: "mcp-tool", flow: "default", workspace: acme, request: { name: "echo" } });
    const expected = { error: { type: "workspace-not-found", message: "workspace not found" }, complete: true };
    expect(await client.answer("g")).toEqual([{ id: "g", ...expected }]);
    expect(await client.answer("f")).toEqual([{ id: "f", ...expected }]);
  });

  it("serves a workspace once registered, on its own config queue, kept apart from default", async () => {
    const registered = await system({
      operation: "put",
      workspace: WorkspaceRegistry.workspace,
      values: [{ type: WorkspaceRegistry.type, key: acme, value: WorkspaceRegistry.value }],
    });
    expect(registered.statusCode).toBe(200);
    await waitFor(() => Object.hasOwn(gw.gateway.workspaceRegistry.values(WorkspaceRegistry.type), acme), {
      timeoutMs: 15_000,
      description: `the gateway to learn of workspace ${acme}`,
    });

    const put = await global({ operation: "put", workspace: acme, values: [{ type: "note", key: "greeting", value: '"hello acme"' }] });
    expect(put.statusCode).toBe(200);
    expect(put.json()).not.toHaveProperty("error");
    // The request went to the workspace's queue: the gateway publishes there.
    expect(await publishers(testTopics().workspaceConfig(acme).requestTopic)).toBe(1);

    expect((await global({ operation: "get", workspace: acme, keys: [{ type: "note", key: "greeting" }] })).json().values).toEqual([
      { type: "note", key: "greeting", value: '"hello acme"' },
    ]);
    expect((await global({ operation: "list", type: "note" })).json().directory).toEqual([]);

    client.send({ id: "s", service: "config", workspace: acme, request: { operation: "list", type: "note" } });
    expect(await client.answer("s")).toEqual([{ id: "s", response: expect.objectContaining({ directory: ["greeting"] }), complete: true }]);
  });

  it("refuses the workspace again once unregistered", async () => {
    const removed = await system({
      operation: "delete",
      workspace: WorkspaceRegistry.workspace,
      keys: [{ type: WorkspaceRegistry.type, key: acme }],
    });
    expect(removed.statusCode).toBe(200);
    await waitFor(() => !Object.hasOwn(gw.gateway.workspaceRegistry.values(WorkspaceRegistry.type), acme), {
      timeoutMs: 15_000,
      description: `the gateway to forget workspace ${acme}`,
    });
    expect((await global({ operation: "list", type: "note", workspace: acme })).statusCode).toBe(404);
  });
});
