import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { ServiceRuntime } from "@toolmesh/base";
import { MemoryBroker, MemoryTransport, PulsarClient, RequestClient } from "@toolmesh/pulsar";
import { ConfigPush, ConfigResponse, type ConfigRequestWire } from "@toolmesh/schema";
import { waitFor, requestTopic, responseTopic, testTopics } from "@toolmesh/test-support";
import { buildConfig } from "../../src/app.js";
import { loadEnv } from "../../src/env.js";

/**
 * The config service as main.ts builds it, on the in-memory bus (no broker), with a caller that asks any of
 * its queues and records every push.
 */
export async function configOnBus(env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "config-unit-"));
  const broker = new MemoryBroker();
  const parsedEnv = loadEnv({ CONFIG_DATA_DIR: dataDir, ...env });
  const runtime = new ServiceRuntime({ name: "config", env: parsedEnv, logger: pino({ level: "silent" }), transport: new MemoryTransport({ broker }) });
  const caller = new PulsarClient({ webServiceUrl: "memory://", transport: new MemoryTransport({ broker }) });
  const pushes: ConfigPush[] = [];
  await caller.subscribe({ topic: testTopics().configNotify, subscription: "watcher", type: "Exclusive" }, async (m) => {
    pushes.push(ConfigPush.parse(JSON.parse(m.payload.toString())));
  });
  const built = await buildConfig(runtime, parsedEnv);
  const clients = new Map<string, Promise<RequestClient<typeof ConfigResponse>>>();
  /** A client of the queue named `name` (`config` is the system queue, `config:<ws>` a workspace's). */
  const client = (name: string) => {
    let found = clients.get(name);
    if (!found) clients.set(name, (found = RequestClient.create(caller, { requestTopic: requestTopic(name), responseTopic: responseTopic(name), responseSchema: ConfigResponse })));
    return found;
  };
  return {
    ...built,
    pushes,
    /** One request on the system queue, or on `queue`. */
    ask: async (request: ConfigRequestWire, queue = "config", timeoutMs = 2_000) => (await client(queue)).request(request, { timeoutMs }),
    /** Sends any JSON (not only valid requests) on a queue. */
    askRaw: async (body: unknown, queue = "config") => (await client(queue)).request(body as ConfigRequestWire, { timeoutMs: 2_000 }),
    pushFor: (version: number) => waitFor(() => pushes.find((p) => p.version === version), { timeoutMs: 2_000, description: `push ${version}` }),
    close: async () => {
      for (const c of clients.values()) await (await c).close();
      await caller.close();
      await runtime.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type ConfigOnBus = Awaited<ReturnType<typeof configOnBus>>;

export const item = (type: string, key: string, body: unknown) => ({ type, key, value: JSON.stringify(body) });
