import {
  ConfigType,
  type ManifestEntry,
  McpDescriptor,
  ToolDescriptor,
  ToolServiceDescriptor,
  argumentsJsonSchema,
  toolServiceConfig,
  trustGraphOnlyToolType,
  type TopicLayout,
  toolServiceTopics,
} from "@toolmesh/schema";
import type { ConfigView } from "@toolmesh/base";

export const CONFIG_SOURCE = "config";
export const CONFIG_TYPES = [ConfigType.tool, ConfigType.toolService, ConfigType.mcp, ConfigType.toolSource];

/** The TrustGraph-only tool type of a stored value, or null (also for a value that is not JSON). */
function trustGraphOnlyType(raw: string | undefined): string | null {
  try {
    return raw === undefined ? null : trustGraphOnlyToolType(JSON.parse(raw));
  } catch {
    return null;
  }
}

/**
 * The tools defined in config (`tool` descriptors, bound through `tool-service` and `mcp` entries) as
 * manifest entries with tool_id `config.<key>`. A descriptor that cannot be used is a problem (the source is
 * degraded), not fatal; a tool of a TrustGraph-only type is left out, with the reason, without degrading it.
 */
export function configTools(view: ConfigView, topics: TopicLayout): { entries: ManifestEntry[]; problems: string[]; leftOut: string[] } {
  const tools = view.parsed(ConfigType.tool, ToolDescriptor);
  const services = view.parsed(ConfigType.toolService, ToolServiceDescriptor);
  const mcp = view.parsed(ConfigType.mcp, McpDescriptor);
  const leftOut: string[] = [];
  const problems = services.invalid.map((i) => `tool-service '${i.key}': ${i.reason}`);
  for (const { key, reason } of tools.invalid) {
    const type = trustGraphOnlyType(view.values(ConfigType.tool)[key]);
    if (type)
      leftOut.push(`tool '${key}': type '${type}' is a TrustGraph tool type toolmesh does not execute (only TrustGraph's agents do)`);
    else problems.push(`tool '${key}': ${reason}`);
  }
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
        const { requestTopic, responseTopic } = toolServiceTopics(service, topics);
        entries.push({ ...base, binding: { kind: "tool-service", request_topic: requestTopic, response_topic: responseTopic, config } });
      } catch (err) {
        problems.push(`tool '${key}': ${(err as Error).message}`);
      }
    } else if (tool.type === "mcp-tool") {
      const server = tool["mcp-tool"];
      if (!mcp.items.has(server)) {
        problems.push(`tool '${key}': no mcp entry '${server}' in config`);
        continue;
      }
      const gateway =
        tool["request-queue"] && tool["response-queue"]
          ? { request_topic: tool["request-queue"], response_topic: tool["response-queue"] }
          : {};
      entries.push({ ...base, binding: { kind: "mcp-tool", mcp_tool: server, ...gateway } });
    } else {
      entries.push({ ...base, binding: { kind: "text-completion" } });
    }
  }
  return { entries, problems, leftOut };
}
