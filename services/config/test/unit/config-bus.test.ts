import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceRuntime } from "@toolmesh/base";
import { MemoryBroker, MemoryTransport, PulsarClient, RequestClient } from "@toolmesh/pulsar";
import { ConfigPush, ConfigResponse, type ConfigRequestWire, Topics, requestTopic, responseTopic } from "@toolmesh/schema";
import { buildConfig } from "../../src/app.js";
import { loadEnv } from "../../src/env.js";

// The config service as main.ts builds it, on the in-memory bus: the handler, the store and the pushes
// together, in milliseconds and with no broker (the same behaviours run on the real broker in integration).
const dataDir = mkdtempSync(join(tmpdir(), "config-unit-"));
const broker = new MemoryBroker();
let runtime: ServiceRuntime;
let caller: PulsarClient;
let config: RequestClient<typeof ConfigResponse>;
const pushes: ConfigPush[] = [];
const ask = (request: ConfigRequestWire) => config.request(request, { timeoutMs: 2_000 });
const value = (type: string, key: string, body: unknown) => ({ type, key, value: JSON.stringify(body) });

beforeAll(async () => {
  const env = loadEnv({ CONFIG_DATA_DIR: dataDir, CONFIG_MAX_VALUE_BYTES: "2048", CONFIG_MAX_REPLY_BYTES: "8192" });
  runtime = new ServiceRuntime({ name: "config", env, logger: pino({ level: "silent" }), transport: new MemoryTransport({ broker }) });
  await buildConfig(runtime, env);
  caller = new PulsarClient({ webServiceUrl: "memory://", transport: new MemoryTransport({ broker }) });
  await caller.subscribe({ topic: Topics.configNotify, subscription: "watcher", type: "Exclusive" }, async (m) => {
    pushes.push(ConfigPush.parse(JSON.parse(m.payload.toString())));
  });
  config = await RequestClient.create(caller, { requestTopic: requestTopic("config"), responseTopic: responseTopic("config"), responseSchema: ConfigResponse });
});
afterAll(async () => {
  await config.close();
  await caller.close();
  await runtime.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("config on the in-memory bus", () => {
  it("stores a descriptor, bumps the version and pushes the changed type", async () => {
    const before = (await ask({ operation: "config" })).version!;
    const put = await ask({ operation: "put", values: [value("tool-service", "jokes", { id: "jokes", topic: "joke" })] });
    expect(put.error).toBeNull();
    expect(put.version).toBe(before + 1);
    for (let i = 0; i < 100 && !pushes.some((p) => p.version === before + 1); i++) await new Promise((r) => setTimeout(r, 5));
    expect(pushes.find((p) => p.version === before + 1)?.changes).toEqual({ "tool-service": ["default"] });
    const got = await ask({ operation: "getvalues", type: "tool-service" });
    expect(got.values.map((v) => [v.key, JSON.parse(v.value!)])).toEqual([["jokes", { id: "jokes", topic: "joke" }]]);
  });

  it("refuses an invalid descriptor and an oversized value with clear errors, and keeps serving", async () => {
    const bad = await ask({ operation: "put", values: [value("tool-service", "broken", { id: "broken" })] });
    expect(bad.error?.message).toMatch(/topic.*request-queue/);
    const big = await ask({ operation: "put", values: [value("note", "big", { text: "x".repeat(4096) })] });
    expect(big.error?.type).toBe("too-large");
    expect(big.error?.message).toMatch(/CONFIG_MAX_VALUE_BYTES/);
    expect((await ask({ operation: "list", type: "tool-service" })).directory).toEqual(["jokes"]);
  });

  it("answers a malformed request with bad-request", async () => {
    const reply = await config.request({ operation: "explode" } as never, { timeoutMs: 2_000 });
    expect(reply.error?.type).toBe("bad-request");
  });
});
