import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryBus } from "@toolmesh/base/testing";
import type { RequestClient } from "@toolmesh/pulsar";
import { ConfigPush, ConfigResponse, type ConfigRequestWire } from "@toolmesh/schema";
import { waitFor, testTopics } from "@toolmesh/test-support";
import { buildConfig } from "../../src/app.js";
import { loadEnv } from "../../src/env.js";

/**
 * The config service as main.ts builds it, on the in-memory bus (no broker), with a caller that asks any of
 * its queues and records every push.
 */
export async function configOnBus(env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "config-unit-"));
  const bus = new MemoryBus();
  const parsedEnv = loadEnv({ CONFIG_DATA_DIR: dataDir, ...env });
  const pushes = await bus.record(testTopics().configNotify, ConfigPush);
  const built = await buildConfig(bus.runtime("config", parsedEnv), parsedEnv);
  const clients = new Map<string, Promise<RequestClient<typeof ConfigResponse>>>();
  /** A client of the queue named `name` (`config` is the system queue, `config:<ws>` a workspace's). */
  const client = (name: string) => {
    let found = clients.get(name);
    if (!found) clients.set(name, (found = bus.requester(name, ConfigResponse)));
    return found;
  };
  return {
    ...built,
    pushes,
    /** One request on the system queue, or on `queue`. */
    ask: async (request: ConfigRequestWire, queue = "config", timeoutMs = 2_000) => (await client(queue)).request(request, { timeoutMs }),
    /** Sends any JSON (not only valid requests) on a queue. */
    askRaw: async (body: unknown, queue = "config") => (await client(queue)).request(body, { timeoutMs: 2_000 }),
    pushFor: (version: number) =>
      waitFor(() => pushes.find((p) => p.version === version), { timeoutMs: 2_000, description: `push ${version}` }),
    close: async () => {
      await bus.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type ConfigOnBus = Awaited<ReturnType<typeof configOnBus>>;

export const item = (type: string, key: string, body: unknown) => ({ type, key, value: JSON.stringify(body) });
