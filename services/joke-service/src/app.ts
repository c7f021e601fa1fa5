import type { ServiceRuntime } from "@toolmesh/base";
import type { JokeEnv } from "./env.js";
import { registerManifestRoute } from "./handlers/manifest.js";
import { JokeService } from "./joke-service.js";

/** Serves the joke tools on JOKE_TOPIC, their manifest on GET /tools/manifest, and announces them. */
export async function buildJokeService(runtime: ServiceRuntime, env: JokeEnv): Promise<{ jokes: JokeService }> {
  const jokes = new JokeService(env.JOKE_TOPIC);
  registerManifestRoute(runtime.http, () => jokes.manifest());
  await jokes.start(runtime, { announce: env.JOKE_ANNOUNCE, announceTopic: env.TOOL_ANNOUNCE_TOPIC, announceIntervalMs: env.TOOL_ANNOUNCE_INTERVAL_MS });
  return { jokes };
}
