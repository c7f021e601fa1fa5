import { z } from "zod";
import { BaseEnv, parseEnv } from "@toolmesh/base";
import { ServicePorts } from "@toolmesh/schema";

const positiveMs = z.coerce.number().int().positive();

export const McpToolEnv = BaseEnv.extend({
  HTTP_PORT: BaseEnv.shape.HTTP_PORT.default(ServicePorts["mcp-tool"]),
  /**
   * Time one request may take in all (opening a session if needed, the call, one retry). Below the 30 s
   * that the api-gateway and the agent wait for mcp-tool, so that our "did not answer" names the server.
   */
  MCP_CALL_TIMEOUT_MS: positiveMs.default(25_000),
  /** Time allowed to open a session: HTTP connect, transport start and the initialize handshake. */
  MCP_CONNECT_TIMEOUT_MS: positiveMs.default(10_000),
  /** Requests handled at once; mostly waiting on remote servers, so well above the core count. */
  MCP_CONCURRENCY: z.coerce.number().int().positive().max(1000).default(32),
});
export type McpToolEnv = z.output<typeof McpToolEnv>;

export const loadEnv = (source: NodeJS.ProcessEnv = process.env): McpToolEnv => parseEnv(McpToolEnv, source);
