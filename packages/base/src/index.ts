export { ConfigView, parseItems, type ConfigSnapshot, type ConfigViewOptions, type ParsedItems } from "./config-view.js";
export { DynamicToolService, type InvocationContext, type ToolResult } from "./dynamic-tool-service.js";
export { BaseEnv, EnvError, parseEnv, portSchema } from "./env.js";
export { createHttpServer, type ReadinessCheck } from "./http.js";
export { createLogger, type Logger } from "./logger.js";
export { ServiceMetrics } from "./metrics.js";
export { ServiceRuntime, type RuntimeOptions } from "./runtime.js";
export { ToolServiceClient, ToolServiceError, type CallOptions, type ToolServiceClientOptions } from "./tool-service-client.js";
export type { FastifyInstance } from "fastify";
