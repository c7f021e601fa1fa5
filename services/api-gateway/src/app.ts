import websocket from "@fastify/websocket";
import type { ConfigView, ServiceRuntime } from "@toolmesh/base";
import { ConfigType } from "@toolmesh/schema";
import { bearerAuth } from "./auth.js";
import { Dispatcher } from "./dispatch.js";
import type { GatewayEnv } from "./env.js";
import { GatewayError, GatewayErrorType } from "./errors.js";
import { registerOpenApiRoute } from "./handlers/openapi.js";
import { registerRestRoutes } from "./handlers/rest.js";
import { registerSocketRoute } from "./handlers/socket.js";
import { ServiceTable } from "./services.js";

export const API_PREFIX = "/api/v1";
const MAX_FRAME_BYTES = 5 * 1024 * 1024;

export interface Gateway {
  config: ConfigView;
  services: ServiceTable;
  dispatcher: Dispatcher;
}

/**
 * Adds the gateway to a runtime: the tool-service config view, the service table, the dispatcher, and the
 * /api/v1 routes (REST, socket, OpenAPI) behind the optional bearer token. The caller listens.
 */
export async function buildGateway(runtime: ServiceRuntime, env: GatewayEnv): Promise<Gateway> {
  const config = runtime.configView([ConfigType.toolService]);
  const services = new ServiceTable(config, { requestMs: env.GATEWAY_REQUEST_TIMEOUT_MS, agentMs: env.GATEWAY_AGENT_TIMEOUT_MS });
  const dispatcher = new Dispatcher({
    pulsar: runtime.pulsar,
    logger: runtime.logger.child({ component: "dispatch" }),
    metrics: runtime.metrics,
    subscriber: runtime.name,
  });
  // Hooks run newest first: calls in flight finish (within the shutdown budget) before config closes.
  runtime.onShutdown(() => config.close());
  runtime.onShutdown(() => dispatcher.close(Math.max(0, env.SHUTDOWN_TIMEOUT_MS - 2_000)));

  await runtime.http.register(websocket, { options: { maxPayload: MAX_FRAME_BYTES } });
  await runtime.http.register(
    async (api) => {
      if (env.GATEWAY_TOKEN) {
        api.addHook("onRequest", bearerAuth(env.GATEWAY_TOKEN, (request) => request.routeOptions.url === `${API_PREFIX}/socket`));
      }
      api.setNotFoundHandler(async (request, reply) => {
        const error = new GatewayError(404, GatewayErrorType.notFound, `no route ${request.method} ${request.url.split("?")[0]}`);
        return reply.status(404).send(error.body);
      });
      registerRestRoutes(api, services, dispatcher);
      registerSocketRoute(api, services, dispatcher);
      registerOpenApiRoute(api, env.GATEWAY_TOKEN !== undefined);
    },
    { prefix: API_PREFIX },
  );
  await config.start();
  return { config, services, dispatcher };
}
