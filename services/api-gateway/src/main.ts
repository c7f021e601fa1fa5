import { startService } from "@toolmesh/base";
import { buildGateway, gatewayRuntimeOptions } from "./app.js";
import { loadEnv } from "./env.js";

await startService("api-gateway", loadEnv, buildGateway, gatewayRuntimeOptions);
