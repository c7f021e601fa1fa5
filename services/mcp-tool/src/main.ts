import { startService } from "@toolmesh/base";
import { SERVICE_ID, buildMcpTool } from "./app.js";
import { loadEnv } from "./env.js";

await startService(SERVICE_ID, loadEnv, buildMcpTool);
