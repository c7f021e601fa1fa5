import { z } from "zod";
import { BaseEnv, parseEnv, portSchema } from "@toolmesh/base";
import { ServicePorts } from "@toolmesh/schema";

const milliseconds = z.coerce.number().int().positive();

export const GatewayEnv = BaseEnv.extend({
  HTTP_PORT: portSchema.default(ServicePorts["api-gateway"]),
  /** Bearer token every /api/v1 route requires; unset = the gateway is open (trusted network only). */
  GATEWAY_TOKEN: z.string().min(1).optional(),
  /** Time allowed for a reply (and between the replies of a tool-service stream). */
  GATEWAY_REQUEST_TIMEOUT_MS: milliseconds.default(30_000),
  /** Agent runs think between messages: the idle time allowed from one agent message to the next. */
  GATEWAY_AGENT_TIMEOUT_MS: milliseconds.default(120_000),
});
export type GatewayEnv = z.output<typeof GatewayEnv>;

export const loadEnv = (source: NodeJS.ProcessEnv = process.env): GatewayEnv => parseEnv(GatewayEnv, source);
