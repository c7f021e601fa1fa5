import { startService } from "@toolmesh/base";
import { buildMcpServer } from "./app.js";
import { loadEnv } from "./env.js";

await startService("mcp-server", loadEnv, buildMcpServer);
