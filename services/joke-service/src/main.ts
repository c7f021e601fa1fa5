import { startService } from "@toolmesh/base";
import { buildJokeService } from "./app.js";
import { loadEnv } from "./env.js";

await startService("joke-service", loadEnv, buildJokeService);
