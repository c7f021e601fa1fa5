import { ServiceName, ToolServiceResponse } from "@toolmesh/schema";
import { z } from "zod";
import { mcpToolOutput, joinResponses } from "./format.js";
import { type GatewayClient, parseReply } from "./gateway.js";

const ToolServiceReplies = z.array(ToolServiceResponse);

/** Replies arrive as an array (a stream's chunks in order); a lone object counts as a stream of one. */
export function asArray(reply: unknown): unknown[] {
  return Array.isArray(reply) ? reply : [reply];
}

/** Calls a tool service through the gateway; the joined text of its streamed replies. */
export async function invokeToolService(
  gateway: GatewayClient,
  serviceId: string,
  request: { user: string; config: Record<string, unknown>; arguments: Record<string, unknown> },
): Promise<string> {
  const reply = await gateway.call(serviceId, {
    user: request.user,
    config: JSON.stringify(request.config),
    arguments: JSON.stringify(request.arguments),
  });
  return joinResponses(parseReply(ToolServiceReplies, asArray(reply), serviceId));
}

/** The gateway's mcp-tool answer (seed 003, TrustGraph's translator): `text`, or `object` as an object. */
const McpToolAnswer = z.object({ text: z.string().optional(), object: z.unknown().optional() });

/** Calls the MCP-tool gateway (seed 003): the tool's text, or its object pretty-printed. */
export async function invokeMcpTool(
  gateway: GatewayClient,
  name: string,
  parameters: Record<string, unknown>,
): Promise<string | undefined> {
  const reply = await gateway.call(ServiceName.mcpTool, { name, parameters });
  return mcpToolOutput(parseReply(McpToolAnswer, reply, ServiceName.mcpTool));
}
