import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FakeConfig, MemoryBus } from "@toolmesh/base/testing";
import { RevisionSummary, ServiceName, ToolRegistryResponse, type ToolRegistryRequestWire } from "@toolmesh/schema";
import { waitFor, testTopics } from "@toolmesh/test-support";
import { buildToolRegistry } from "../../src/app.js";
import { loadEnv } from "../../src/env.js";

/**
 * The tool registry as main.ts builds it, on the in-memory bus (no broker), with a fake config service on
 * the same bus, a caller of its queue, and every revision push recorded.
 */
export async function registryOnBus() {
  const dataDir = mkdtempSync(join(tmpdir(), "registry-unit-"));
  const bus = new MemoryBus();
  const config = await FakeConfig.start(bus);
  const env = loadEnv({ REGISTRY_DATA_DIR: dataDir, HTTP_PORT: "0", REGISTRY_REFRESH_INTERVAL_MS: "0" });
  const pushes = await bus.record(testTopics().toolRegistryNotify, RevisionSummary);
  await buildToolRegistry(bus.runtime("tool-registry", env), env);
  const registry = await bus.requester(ServiceName.toolRegistry, ToolRegistryResponse);
  const ask = (request: ToolRegistryRequestWire) => registry.request(request);
  return {
    bus,
    config,
    pushes,
    ask,
    /** Sends any JSON on the registry's queue (not only valid requests). */
    askRaw: (body: unknown) => registry.request(body),
    /** The current revision once it is `number` (config changes and announcements refresh in the background). */
    revision: (number: number) =>
      waitFor(
        async () => {
          const reply = await ask({ operation: "current" });
          return reply.revision?.revision_number === number ? reply.revision : undefined;
        },
        { timeoutMs: 2_000, intervalMs: 10, description: `catalog revision ${number}` },
      ),
    close: async () => {
      await bus.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type RegistryOnBus = Awaited<ReturnType<typeof registryOnBus>>;
