import { startService } from "@toolmesh/base";
import { buildGateway } from "./app.js";
import { loadEnv } from "./env.js";

await startService("api-gateway", loadEnv, buildGateway);
