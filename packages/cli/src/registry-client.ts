import { ServiceName, ToolRegistryResponse, type ToolRegistryRequestWire } from "@toolmesh/schema";
import { type GatewayClient, parseReply } from "./gateway.js";

/** The tool-registry's bus operations, through the gateway (service `tool-registry`). */
export class RegistryClient {
  constructor(private readonly gateway: GatewayClient) {}

  async call(request: ToolRegistryRequestWire): Promise<ToolRegistryResponse> {
    return parseReply(ToolRegistryResponse, await this.gateway.call(ServiceName.toolRegistry, request), ServiceName.toolRegistry);
  }
}
