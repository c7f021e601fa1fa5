export { ConfigView, parseItems, type ConfigSnapshot, type ConfigViewOptions, type ParsedItems } from "./config-view.js";
export { DynamicToolService, type InvocationContext, type ToolResult } from "./dynamic-tool-service.js";
export {
  BaseEnv,
  EmbeddedEnv,
  EnvError,
  ToolServiceEnv,
  type TracePropagator,
  type TracesSampler,
  bearerTokenSchema,
  parseEnv,
  portSchema,
  topicNameSchema,
} from "./env.js";
export {
  DefinedToolService,
  defineTool,
  type DefinedTool,
  type DefinedToolServiceOptions,
  type ToolRunContext,
  type ToolSpec,
  type ToolVariant,
} from "./define-tool.js";
export { serveToolService, toolServiceId } from "./tool-service-app.js";
export { fetchConfigTypes, type AskConfig, type FetchedTypes } from "./config-fetch.js";
export { FailureStreak } from "./failure-streak.js";
export { connectionTimeoutFor, createHttpServer, type ReadinessCheck, type ReadinessResult } from "./http.js";
export { createLogger, type Logger } from "./logger.js";
export { ServiceMetrics, type StoreOutcome } from "./metrics.js";
export { DEFAULT_SERVICE_URL, DEFAULT_WEB_URL, pulsarSettings } from "./pulsar-settings.js";
export { ServiceRuntime, type RuntimeOptions } from "./runtime.js";
export { startService } from "./start-service.js";
export { ToolServiceClient, ToolServiceError, type CallOptions, type ToolServiceClientOptions } from "./tool-service-client.js";
export type { FastifyInstance } from "fastify";
export { ClientPool, type ClientLease, type ClientPoolOptions, type Closable } from "./client-pool.js";
export { StartupError } from "./startup-error.js";
export { makeDataDir, makeFolder } from "./data-dir.js";
export {
  DATABASE_RECONNECT_MAX_S,
  DatabaseEnv,
  connectPostgres,
  databaseLocation,
  migrate,
  openDatabase,
  poolSettings,
  reconnectDelayS,
  type Db,
  type Migration,
  type PoolSettings,
  type Sql,
} from "./database.js";
export { MISSING_PREPARED_STATEMENT, reportUnreachableDatabase, unreachableDatabaseCode } from "./database-outage.js";
export { measuredStore } from "./measured-store.js";
// The SDK itself (Tracing, propagatorFor) is `@toolmesh/base/tracing`, loaded only where tracing is on.
export { tracingSettings, type TracingSettings } from "./tracing-settings.js";
export {
  ROOT_TRACE_CONTEXT,
  SpanKind,
  TraceAttr,
  TraceScope,
  extractTraceContext,
  injectTraceContext,
  topicName,
  traced,
  tracedStream,
  type TraceContext,
  type TraceOptions,
} from "@toolmesh/pulsar";
