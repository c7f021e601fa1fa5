import { EnvError } from "@toolmesh/base";
import { buildGateway, createGatewayRuntime } from "./app.js";
import { type GatewayEnv, loadEnv } from "./env.js";

let env: GatewayEnv;
try {
  env = loadEnv();
} catch (err) {
  if (!(err instanceof EnvError)) throw err;
  console.error(`api-gateway: ${err.message}`);
  process.exit(1);
}

const runtime = createGatewayRuntime(env);
runtime.installSignalHandlers();
await buildGateway(runtime, env);
await runtime.listen();
