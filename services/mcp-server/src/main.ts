import { EnvError, ServiceRuntime } from "@toolmesh/base";
import { buildMcpServer } from "./app.js";
import { type McpServerEnv, loadEnv } from "./env.js";

let env: McpServerEnv;
try {
  env = loadEnv();
} catch (err) {
  if (!(err instanceof EnvError)) throw err;
  console.error(`mcp-server: ${err.message}`);
  process.exit(1);
}

const runtime = new ServiceRuntime({ name: "mcp-server", env });
runtime.installSignalHandlers();
await buildMcpServer(runtime, env);
await runtime.listen();
