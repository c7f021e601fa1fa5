import {
  ConfigType,
  type ManifestEntry,
  McpDescriptor,
  ToolDescriptor,
  ToolServiceDescriptor,
  argumentsJsonSchema,
  toolServiceConfig,
} from "@toolmesh/schema";
import type { ConfigView } from "@toolmesh/base";

export const CONFIG_SOURCE = "config";
export const CONFIG_TYPES = [ConfigType.tool, ConfigType.toolService, ConfigType.mcp, ConfigType.toolSource];

/**
 * The tools defined in config (`tool` descriptors, bound through `tool-service` and `mcp` entries) as
 * manifest entries with tool_id `config.<key>`. A descriptor that cannot be used is reported, not fatal.
 */
export function configTools(view: ConfigView): { entries: ManifestEntry[]; problems: string[] } {
  const tools = view.parsed(ConfigType.tool, ToolDescriptor);
  const services = view.parsed(ConfigType.toolService, ToolServiceDescriptor);
  const mcp = view.parsed(ConfigType.mcp, McpDescriptor);
  const problems = [
    ...tools.invalid.map((i) => `tool '${i.key}': ${i.reason}`),
    ...services.invalid.map((i) => `tool-service '${i.key}': ${i.reason}`),
  ];
  const entries: ManifestEntry[] = [];
  for (const [key, tool] of tools.items) {
    const base = {
      tool_id: `config.${key}`,
      name: tool.name,
      description: tool.description,
      parameters_schema: argumentsJsonSchema(tool.arguments),
      ...(tool.group ? { group: tool.group } : {}),
    };
    if (tool.type === "tool-service") {
      const service = services.items.get(tool.service);
      if (!service) {
        problems.push(`tool '${key}': no tool-service '${tool.service}' in config`);
        continue;
      }
      try {
        const config = toolServiceConfig(tool, service);
        entries.push({ ...base, binding: { kind: "tool-service", request_topic: service.requestTopic, response_topic: service.responseTopic, config } });
      } catch (err) {
        problems.push(`tool '${key}': ${(err as Error).message}`);
      }
    } else if (tool.type === "mcp-tool") {
      const server = tool["mcp-tool"];
      if (!mcp.items.has(server)) {
        problems.push(`tool '${key}': no mcp entry '${server}' in config`);
        continue;
      }
      entries.push({ ...base, binding: { kind: "mcp-tool", mcp_tool: server } });
    } else {
      entries.push({ ...base, binding: { kind: "text-completion" } });
    }
  }
  return { entries, problems };
}
