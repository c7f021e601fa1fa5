import type { FastifyInstance } from "fastify";
import type { Subscription } from "@toolmesh/pulsar";
import type { ManifestEntry } from "@toolmesh/schema";
import type { DynamicToolService } from "./dynamic-tool-service.js";
import type { ToolServiceEnv } from "./env.js";
import type { ServiceRuntime } from "./runtime.js";

/** GET /tools/manifest: a service's tools, for a registry tool source (design §3). */
function registerManifestRoute(app: FastifyInstance, manifest: () => ManifestEntry[]): void {
  app.get("/tools/manifest", async (_request, reply) => reply.type("application/json").send(manifest()));
}

/**
 * What a tool service's build function does: serve its manifest on GET /tools/manifest, serve its topic,
 * and (unless `announce` is false) announce the manifest where ToolServiceEnv says, as a heartbeat.
 */
export async function serveToolService(
  runtime: ServiceRuntime,
  service: DynamicToolService,
  env: ToolServiceEnv,
  announce: boolean,
): Promise<Subscription> {
  registerManifestRoute(runtime.http, () => service.manifest(runtime.topics));
  const announceTopic = env.TOOL_ANNOUNCE_TOPIC ?? runtime.topics.toolAnnouncements;
  return service.start(runtime, { announce, announceTopic, announceIntervalMs: env.TOOL_ANNOUNCE_INTERVAL_MS });
}
