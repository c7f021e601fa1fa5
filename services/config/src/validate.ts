import { ConfigType, type ConfigValue, DescriptorSchemas, describeIssues, storedDescriptorSchema } from "@toolmesh/schema";

/** Types whose `id` field must equal the item's key, so lookups by key find what the item says it is. */
const KEYED_BY_ID = new Set<string>([ConfigType.toolService, ConfigType.toolSource]);

/**
 * Checks a value of a type toolmesh uses (tool-service, mcp, tool-source, and tools of the types it
 * executes); other values — other types, and tools of TrustGraph-only types — are stored as given, as
 * TrustGraph stores them. Returns why the value is refused, or null.
 */
export function descriptorProblem(item: ConfigValue): string | null {
  if (!Object.hasOwn(DescriptorSchemas, item.type)) return null;
  let json: unknown;
  try {
    json = JSON.parse(item.value);
  } catch (err) {
    return `${item.type} '${item.key}': value is not valid JSON: ${(err as Error).message}`;
  }
  const schema = storedDescriptorSchema(item.type, json);
  if (!schema) return null;
  const parsed = schema.safeParse(json);
  if (!parsed.success) return `${item.type} '${item.key}' is not a valid descriptor: ${describeIssues(parsed.error)}`;
  if (KEYED_BY_ID.has(item.type)) {
    const id = (json as { id?: unknown }).id;
    if (id !== item.key) return `${item.type} '${item.key}': its id '${String(id)}' must equal the key`;
  }
  return null;
}
