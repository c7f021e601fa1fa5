import { DefinedToolService, type ServiceRuntime, serveToolService } from "@toolmesh/base";
import type { JokeEnv } from "./env.js";
import { tellJoke } from "./tell-joke.js";

/** Serves the joke tools on JOKE_TOPIC, their manifest on GET /tools/manifest, and announces them. */
export async function buildJokeService(runtime: ServiceRuntime, env: JokeEnv): Promise<{ jokes: DefinedToolService }> {
  const jokes = new DefinedToolService({ id: "joke-service", topic: env.JOKE_TOPIC, tool: tellJoke });
  await serveToolService(runtime, jokes, env, env.JOKE_ANNOUNCE);
  return { jokes };
}
