import { z } from "zod";
import { BaseEnv, bearerTokenSchema, parseEnv, portSchema } from "@toolmesh/base";
import { ServicePorts } from "@toolmesh/schema";

const milliseconds = z.coerce.number().int().positive();

export const GatewayEnv = BaseEnv.extend({
  HTTP_PORT: portSchema.default(ServicePorts["api-gateway"]),
  /** Bearer token every /api/v1 route requires; unset = the gateway is open (trusted network only). */
  GATEWAY_TOKEN: bearerTokenSchema.optional(),
  /** Time allowed for a reply (and between the replies of a tool-service stream). */
  GATEWAY_REQUEST_TIMEOUT_MS: milliseconds.default(30_000),
  /**
   * Idle time allowed from one agent message to the next. Longer than the agent's own limits between two
   * messages (an LLM call, retried once, then its tool calls), so the agent's error, naming the cause, comes first.
   */
  GATEWAY_AGENT_TIMEOUT_MS: milliseconds.default(300_000),
  /** Time allowed for an mcp-tool reply: longer than mcp-tool's MCP_CONNECT_TIMEOUT_MS + MCP_CALL_TIMEOUT_MS. */
  GATEWAY_MCP_TOOL_TIMEOUT_MS: milliseconds.default(45_000),
  /** A tool service's client (producer + subscription) unused this long is closed. */
  GATEWAY_TOOL_CLIENT_IDLE_MS: milliseconds.default(300_000),
  /** Tool-service clients kept at most; the least recently used idle one is closed to make room. */
  GATEWAY_MAX_TOOL_CLIENTS: z.coerce.number().int().positive().default(256),
});
export type GatewayEnv = z.output<typeof GatewayEnv>;

export const loadEnv = (source: NodeJS.ProcessEnv = process.env): GatewayEnv => parseEnv(GatewayEnv, source);
