import { DefinedToolService, type ServiceRuntime, serveToolService, toolServiceId } from "@toolmesh/base";
import { DEFAULT_JOKE_TOPIC, type JokeEnv } from "./env.js";
import { tellJoke } from "./tell-joke.js";

/** Serves the joke tools on JOKE_TOPIC, their manifest on GET /tools/manifest, and announces them. */
export async function buildJokeService(runtime: ServiceRuntime, env: JokeEnv): Promise<{ jokes: DefinedToolService }> {
  const jokes = new DefinedToolService({
    id: toolServiceId("joke-service", env.JOKE_TOPIC, DEFAULT_JOKE_TOPIC),
    topic: env.JOKE_TOPIC,
    tool: tellJoke,
  });
  await serveToolService(runtime, jokes, env, env.JOKE_ANNOUNCE);
  return { jokes };
}
