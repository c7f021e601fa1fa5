import websocket from "@fastify/websocket";
import type { Logger } from "pino";
import { type ConfigView, ServiceRuntime, type RuntimeOptions } from "@toolmesh/base";
import { ConfigType, TenantPolicy, WorkspaceRegistry, ServiceError, ErrorType } from "@toolmesh/schema";
import { bearerAuth } from "./auth.js";
import { Dispatcher } from "./dispatch.js";
import type { GatewayEnv } from "./env.js";
import { registerOpenApiRoute } from "./handlers/openapi.js";
import { registerRestRoutes } from "./handlers/rest.js";
import { registerSocketRoute } from "./handlers/socket.js";
import { ServiceTable, type ServiceTimeouts, longestWaitMs } from "./services.js";
import { KnownWorkspaces } from "./tg/workspaces.js";

export const API_PREFIX = "/api/v1";
const MAX_FRAME_BYTES = 5 * 1024 * 1024;

export interface Gateway {
  config: ConfigView;
  /** The workspace registry (`__workspaces__`), read to refuse requests for workspaces that do not exist. */
  workspaceRegistry: ConfigView;
  services: ServiceTable;
  dispatcher: Dispatcher;
}

const timeouts = (env: GatewayEnv): ServiceTimeouts => ({
  requestMs: env.GATEWAY_REQUEST_TIMEOUT_MS,
  agentMs: env.GATEWAY_AGENT_TIMEOUT_MS,
  mcpToolMs: env.GATEWAY_MCP_TOOL_TIMEOUT_MS,
});

/** The gateway's HTTP server keeps idle connections open longer than any call may wait. */
export const gatewayRuntimeOptions = (env: GatewayEnv): Partial<RuntimeOptions> => ({ longestCallMs: longestWaitMs(timeouts(env)) });

/** The gateway's runtime as main.ts makes it (tests make theirs here). */
export function createGatewayRuntime(env: GatewayEnv, logger?: Logger): ServiceRuntime {
  return new ServiceRuntime({ name: "api-gateway", env, ...gatewayRuntimeOptions(env), ...(logger ? { logger } : {}) });
}

/**
 * Adds the gateway to a runtime (made by createGatewayRuntime): the tool-service config view, the service table, the dispatcher, and the
 * /api/v1 routes (REST, socket, OpenAPI) behind the optional bearer token. The caller listens.
 */
export async function buildGateway(runtime: ServiceRuntime, env: GatewayEnv): Promise<Gateway> {
  const config = runtime.configView([ConfigType.toolService]);
  const registry = runtime.configView([WorkspaceRegistry.type], WorkspaceRegistry.workspace);
  const services = new ServiceTable(
    config,
    runtime.topics,
    timeouts(env),
    new TenantPolicy(runtime.topics.tenant, env.TOOLMESH_ALLOWED_TENANTS),
  );
  const dispatcher = new Dispatcher({
    pulsar: runtime.pulsar,
    logger: runtime.logger.child({ component: "dispatch" }),
    metrics: runtime.metrics,
    subscriber: runtime.name,
    toolClients: { idleMs: env.GATEWAY_TOOL_CLIENT_IDLE_MS, maxClients: env.GATEWAY_MAX_TOOL_CLIENTS },
  });
  // A descriptor deleted (or moved to other queues) takes its client with it.
  config.onChange(() => dispatcher.retainToolServices(services.toolServiceTopics()));
  // Hooks run newest first: calls in flight finish (within the shutdown budget) before config closes.
  runtime.onShutdown(async () => {
    await Promise.all([config.close(), registry.close()]);
  });
  runtime.onShutdown(() => dispatcher.close(runtime.windDownSignal));

  await runtime.http.register(websocket, { options: { maxPayload: MAX_FRAME_BYTES } });
  await runtime.http.register(
    async (api) => {
      if (env.GATEWAY_TOKEN) {
        api.addHook(
          "onRequest",
          bearerAuth(env.GATEWAY_TOKEN, (request) => request.routeOptions.url === `${API_PREFIX}/socket`),
        );
      }
      api.setNotFoundHandler(async (request, reply) => {
        const error = new ServiceError(ErrorType.notFound, `no route ${request.method} ${request.url.split("?")[0]}`);
        return reply.status(404).send(error.body);
      });
      const workspaces = new KnownWorkspaces(registry);
      registerRestRoutes(api, services, dispatcher, workspaces);
      registerSocketRoute(api, services, dispatcher, workspaces, env.GATEWAY_TOKEN);
      registerOpenApiRoute(api, env.GATEWAY_TOKEN !== undefined);
    },
    { prefix: API_PREFIX },
  );
  await Promise.all([config.start(), registry.start()]);
  return { config, workspaceRegistry: registry, services, dispatcher };
}
