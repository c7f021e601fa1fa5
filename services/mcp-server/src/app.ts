import type { ServiceRuntime } from "@toolmesh/base";
import { ArgumentValidator } from "./argument-validator.js";
import { AccessTokens } from "./access-tokens.js";
import { bearerAuth, metadataPath, originCheck, registerResourceMetadata } from "./auth.js";
import { BindingInvoker } from "./binding-invoker.js";
import { RevisionCatalog } from "./catalog.js";
import type { McpServerEnv } from "./env.js";
import { registerMcpRoutes } from "./handlers/mcp-routes.js";
import { createToolsCallHandler } from "./handlers/tools-call.js";
import { createToolsListHandler } from "./handlers/tools-list.js";
import { McpMetrics } from "./metrics.js";
import { SessionRegistry } from "./sessions.js";
import { ToolViews } from "./tool-view.js";

export interface McpServerApp {
  catalog: RevisionCatalog;
  sessions: SessionRegistry;
}

/**
 * Adds the MCP face to a runtime: the revision catalog (registry requests + revision pushes), the binding
 * invoker, the session registry, and the Streamable HTTP routes behind the optional bearer token (plus
 * the protected-resource metadata when an authorization server is configured). The caller listens.
 */
export async function buildMcpServer(runtime: ServiceRuntime, env: McpServerEnv): Promise<McpServerApp> {
  const logger = runtime.logger;
  const metrics = new McpMetrics(runtime.metrics.registry);
  const catalog = new RevisionCatalog({
    pulsar: runtime.pulsar,
    topics: runtime.topics,
    logger: logger.child({ component: "catalog" }),
    subscriber: runtime.name,
    timeoutMs: env.MCP_REGISTRY_TIMEOUT_MS,
    pollMs: env.MCP_REGISTRY_POLL_MS,
  });
  const views = new ToolViews();
  const sessions = new SessionRegistry({
    idleMs: env.MCP_SESSION_IDLE_MS,
    maxSessions: env.MCP_MAX_SESSIONS,
    metrics,
    logger: logger.child({ component: "sessions" }),
  });
  const invoker = new BindingInvoker(runtime.pulsar, runtime.topics, runtime.name);
  catalog.onNewRevision((revision) => sessions.follow(revision));
  // Ready once the registry answers, even with no revision yet (sessions then get a clear 503 until one exists).
  runtime.addReadinessCheck("catalog", () => catalog.reachable);
  // Hooks run newest first: sessions close (ending their streams) before the Pulsar clients behind them.
  runtime.onShutdown(() => catalog.close());
  runtime.onShutdown(() => invoker.close());
  // Calls still running near SHUTDOWN_TIMEOUT_MS are answered "cut short"; the other hooks (Pulsar clients) get the rest.
  runtime.onShutdown(() => sessions.closeAll(runtime.windDownSignal));

  const listTools = createToolsListHandler({ catalog, views, pageSize: env.MCP_PAGE_SIZE });
  const callTool = createToolsCallHandler({
    invoker,
    validator: new ArgumentValidator(),
    metrics,
    logger: logger.child({ component: "calls" }),
    callTimeoutMs: env.MCP_CALL_TIMEOUT_MS,
    windDown: runtime.windDownSignal,
  });
  const resource = env.MCP_AUTHORIZATION_SERVERS.length > 0 ? env.MCP_RESOURCE_URL : undefined;
  if (resource) {
    registerResourceMetadata(runtime.http, {
      resource,
      authorizationServers: env.MCP_AUTHORIZATION_SERVERS,
      scopes: env.MCP_REQUIRED_SCOPES,
    });
  }
  const metadataUrl = resource ? new URL(metadataPath(resource), resource).href : undefined;
  // The authorization servers the metadata names issue the tokens clients then bring: check them here.
  const accessTokens = resource
    ? new AccessTokens({
        authorizationServers: env.MCP_AUTHORIZATION_SERVERS,
        resource,
        requiredScopes: env.MCP_REQUIRED_SCOPES,
        logger: logger.child({ component: "access-tokens" }),
      })
    : undefined;

  await runtime.http.register(async (scope) => {
    scope.addHook("onRequest", originCheck(env.MCP_ALLOWED_ORIGINS));
    scope.addHook(
      "onRequest",
      bearerAuth({
        token: env.GATEWAY_TOKEN,
        metadataUrl,
        requiredScopes: env.MCP_REQUIRED_SCOPES,
        ...(accessTokens ? { accessTokens } : {}),
      }),
    );
    await registerMcpRoutes(scope, { catalog, views, sessions, listTools, callTool, logger });
  });
  await catalog.start();
  return { catalog, sessions };
}
