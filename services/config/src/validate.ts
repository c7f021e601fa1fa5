import { ConfigType, DescriptorSchemas, type ConfigValue, describeIssues } from "@toolmesh/schema";

/** Types whose `id` field must equal the item's key, so lookups by key find what the item says it is. */
const KEYED_BY_ID = new Set<string>([ConfigType.toolService, ConfigType.toolSource]);

/**
 * Checks a value of a type toolmesh knows (tool-service, tool, mcp, tool-source); other types are stored
 * as given. Returns why the value is refused, or null.
 */
export function descriptorProblem(item: ConfigValue): string | null {
  const schema = DescriptorSchemas[item.type as keyof typeof DescriptorSchemas];
  if (!schema) return null;
  let json: unknown;
  try {
    json = JSON.parse(item.value);
  } catch (err) {
    return `${item.type} '${item.key}': value is not valid JSON: ${(err as Error).message}`;
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) return `${item.type} '${item.key}' is not a valid descriptor: ${describeIssues(parsed.error)}`;
  if (KEYED_BY_ID.has(item.type)) {
    const id = (json as { id?: unknown }).id;
    if (id !== item.key) return `${item.type} '${item.key}': its id '${String(id)}' must equal the key`;
  }
  return null;
}
