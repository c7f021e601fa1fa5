import { ServiceRuntime } from "@toolmesh/base";
import { loadEnv } from "./env.js";
import { registerManifestRoute } from "./handlers/manifest.js";
import { JokeService } from "./joke-service.js";

const env = loadEnv();
const runtime = new ServiceRuntime({ name: "joke-service", env });
runtime.installSignalHandlers();

const jokes = new JokeService(env.JOKE_TOPIC);
registerManifestRoute(runtime.http, () => jokes.manifest());
await jokes.start(runtime, { announce: env.JOKE_ANNOUNCE, announceTopic: env.TOOL_ANNOUNCE_TOPIC, announceIntervalMs: env.TOOL_ANNOUNCE_INTERVAL_MS });
await runtime.listen();
