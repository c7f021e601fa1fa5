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
 * The service id a tool service announces: its package name on its default topic, `<name>-<topic>` on any
 * other. Replicas on one topic share an id (the registry keeps one announcement); two processes of one
 * package on different topics are two services, and no longer overwrite each other's announcement.
 */
export function toolServiceId(name: string, topic: string, defaultTopic: string): string {
  return topic === defaultTopic ? name : `${name}-${topic}`;
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
