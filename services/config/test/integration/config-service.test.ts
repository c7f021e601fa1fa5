import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigView } from "@toolmesh/base";
import { PulsarClient, RequestClient } from "@toolmesh/pulsar";
import { ConfigPush, ConfigResponse, type ConfigRequestWire, type ConfigValue } from "@toolmesh/schema";
import {
  ServiceProcess,
  useBroker,
  waitFor,
  brokerEnv,
  clientOptions,
  requestTopic,
  serviceTopics,
  testTopics,
} from "@toolmesh/test-support";

const dataDir = mkdtempSync(join(tmpdir(), "config-service-"));
let service: ServiceProcess;
let pulsar: PulsarClient;
let config: RequestClient<typeof ConfigResponse>;
const pushes: ConfigPush[] = [];

const ask = (request: ConfigRequestWire) => config.request(request, { timeoutMs: 5_000 });
const jokeService = { id: "joke-service", topic: "joke", "config-params": [{ name: "style", required: true }] };
const tool = (name: string, style: string) => ({
  type: "tool-service",
  name,
  description: `tells a ${style}`,
  service: "joke-service",
  style,
  arguments: [{ name: "topic", type: "string", description: "what about" }],
});
const value = (type: string, key: string, body: unknown) => ({ type, key, value: JSON.stringify(body) });

beforeAll(async () => {
  const broker = await useBroker();
  service = await ServiceProcess.start({ service: "config", env: { ...brokerEnv(broker), CONFIG_DATA_DIR: dataDir } });
  pulsar = new PulsarClient(clientOptions(broker));
  config = await RequestClient.create(pulsar, {
    ...serviceTopics("config"),
    responseSchema: ConfigResponse,
  });
  await pulsar.subscribe({ topic: testTopics().configNotify, subscription: `test-${process.pid}`, type: "Exclusive" }, async (m) => {
    pushes.push(ConfigPush.parse(JSON.parse(m.payload.toString())));
  });
});

afterAll(async () => {
  await config?.close();
  await pulsar?.close();
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("config service over the real broker", () => {
  it("stores descriptors, bumps the version and pushes the changed types", async () => {
    const start = (await ask({ operation: "config" })).version!;
    const put = await ask({
      operation: "put",
      values: [value("tool-service", "joke-service", jokeService), value("tool", "tell-pun", tool("tell-pun", "pun"))],
    });
    expect(put.error).toBeNull();
    expect(put.version).toBe(start + 1);
    await waitFor(() => pushes.find((p) => p.version === start + 1), { description: "the push" });
    expect(pushes.find((p) => p.version === start + 1)!.changes).toEqual({ "tool-service": ["default"], tool: ["default"] });

    const got = await ask({ operation: "get", keys: [{ type: "tool", key: "tell-pun" }] });
    expect(JSON.parse(got.values[0]!.value!)).toMatchObject({ style: "pun" });
    expect((await ask({ operation: "list", type: "tool" })).directory).toEqual(["tell-pun"]);
    expect((await ask({ operation: "getvalues", type: "tool-service" })).values.map((v) => v.key)).toEqual(["joke-service"]);
    const all = await ask({ operation: "config" });
    expect(Object.keys(all.config!)).toEqual(["tool", "tool-service"]);
  });

  it("keeps workspaces apart", async () => {
    await ask({ operation: "put", workspace: "team-b", values: [value("tool", "only-b", tool("only-b", "dad-joke"))] });
    expect((await ask({ operation: "list", type: "tool", workspace: "team-b" })).directory).toEqual(["only-b"]);
    expect((await ask({ operation: "list", type: "tool" })).directory).not.toContain("only-b");
  });

  it("refuses invalid descriptors with a clear error and stores nothing", async () => {
    const before = (await ask({ operation: "config" })).version;
    const bad = await ask({
      operation: "put",
      values: [value("tool", "ok-one", tool("ok-one", "pun")), value("tool", "broken", { type: "tool-service", name: "broken" })],
    });
    expect(bad.error).toEqual({
      type: "config-error",
      message: expect.stringMatching(/^tool 'broken' is not a valid descriptor: service: /),
    });
    expect((await ask({ operation: "config" })).version).toBe(before);
    expect((await ask({ operation: "list", type: "tool" })).directory).not.toContain("ok-one");
  });

  it("answers missing keys as TrustGraph does, malformed requests with errors, and keeps serving", async () => {
    const missing = await ask({ operation: "get", keys: [{ type: "tool", key: "nope" }] });
    expect(missing.error).toBeNull();
    expect(missing.values).toEqual([{ type: "tool", key: "nope", value: null }]);
    expect((await ask({ operation: "delete", keys: [{ type: "tool", key: "nope" }] })).error).toBeNull();
    expect((await ask({ operation: "list" })).error).toEqual({ type: "bad-request", message: "'list' needs a 'type'" });
    expect((await ask({ operation: "put", values: [{ type: "tool" } as ConfigValue] })).error?.type).toBe("bad-request");
    // A put of nothing is no error (TrustGraph's flow-svc sends one), and changes nothing.
    expect((await ask({ operation: "put" })).error).toBeNull();
    expect((await ask({ operation: "get", workspace: "", keys: [{ type: "tool", key: "nope" }] })).error).toEqual({
      type: "bad-request",
      message: "Workspace is required",
    });
    expect((await ask({ operation: "drop" as "get" })).error?.type).toBe("bad-operation");
    await pulsar.send(requestTopic("config"), Buffer.from("{nonsense"), { id: "raw-1" });
    expect((await ask({ operation: "list", type: "tool" })).error).toBeNull();
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
  });

  it("serves each workspace's own queue, registered on its first put, and names it in the push", async () => {
    const put = await ask({ operation: "put", workspace: "team-q", values: [value("tool", "only-q", tool("only-q", "pun"))] });
    expect(put.error).toBeNull();
    await waitFor(() => pushes.find((p) => p.version === put.version), { description: "the push" });
    expect(pushes.find((p) => p.version === put.version)).toEqual({
      version: put.version,
      changes: { tool: ["team-q"] },
      workspace_changes: { created: ["team-q"], deleted: [] },
    });
    const queue = await RequestClient.create(pulsar, { ...testTopics().workspaceConfig("team-q"), responseSchema: ConfigResponse });
    try {
      // The queue's workspace wins over the body's.
      expect((await queue.request({ operation: "list", workspace: "default", type: "tool" }, { timeoutMs: 5_000 })).directory).toEqual([
        "only-q",
      ]);
      expect((await queue.request({ operation: "getkeys-all-ws", type: "tool" }, { timeoutMs: 5_000 })).error?.type).toBe("bad-operation");
    } finally {
      await queue.close();
    }
    const keys = await ask({ operation: "getkeys-all-ws", workspace: "", type: "tool" });
    expect(keys.values).toEqual(expect.arrayContaining([{ workspace: "team-q", type: "tool", key: "only-q", value: "" }]));
  });

  it("deletes with a version bump and a push", async () => {
    const before = (await ask({ operation: "config" })).version!;
    const deleted = await ask({ operation: "delete", keys: [{ type: "tool", key: "tell-pun" }] });
    expect(deleted.version).toBe(before + 1);
    await waitFor(() => pushes.find((p) => p.version === before + 1 && p.changes.tool), { description: "delete push" });
  });

  it("keeps everything across a restart, and the version keeps increasing", async () => {
    await ask({ operation: "put", values: [value("tool", "tell-dad-joke", tool("tell-dad-joke", "dad-joke"))] });
    const before = await ask({ operation: "config" });
    await service.restart();
    const after = await waitFor(
      async () => {
        const reply = await ask({ operation: "config" });
        return reply.error === null ? reply : undefined;
      },
      { timeoutMs: 20_000, description: "config after restart" },
    );
    expect(after.version).toBe(before.version);
    expect(after.config).toEqual(before.config);
    const next = await ask({ operation: "put", values: [value("tool", "tell-one-liner", tool("tell-one-liner", "one-liner"))] });
    expect(next.version).toBe(before.version! + 1);
  });
});

describe("ConfigView against the real config service", () => {
  it("loads its types and re-reads all of them when any changes", async () => {
    const view = new ConfigView(pulsar, pino({ level: "silent" }), {
      types: ["tool", "tool-service"],
      topics: testTopics(),
      subscriber: "view-test",
    });
    await view.start();
    await view.whenReady();
    expect(Object.keys(view.values("tool-service"))).toEqual(["joke-service"]);
    const versions: number[] = [];
    view.onChange((_snapshot, version) => versions.push(version));
    // Only 'tool' changes; the view must still hold every type afterwards.
    const put = await ask({ operation: "put", values: [value("tool", "tell-pun-2", tool("tell-pun-2", "pun"))] });
    await waitFor(() => view.version === put.version, { description: "the view to catch up" });
    expect(Object.keys(view.values("tool"))).toContain("tell-pun-2");
    expect(Object.keys(view.values("tool-service"))).toEqual(["joke-service"]);
    const { items, invalid } = view.parsed("tool", (await import("@toolmesh/schema")).ToolDescriptor);
    expect(items.get("tell-pun-2")).toMatchObject({ style: "pun" });
    expect(invalid).toEqual([]);
    expect(versions).toContain(put.version);
    await view.close();
  });
});
