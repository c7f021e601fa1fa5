import type { FastifyInstance } from "@toolmesh/base";
import type { ManifestEntry } from "@toolmesh/schema";

/** GET /tools/manifest: this service's tools, for a registry tool source (design §3). */
export function registerManifestRoute(app: FastifyInstance, manifest: () => ManifestEntry[]): void {
  app.get("/tools/manifest", async (_request, reply) => reply.type("application/json").send(manifest()));
}
