import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { CatalogTool } from "@toolmesh/schema";

/** Where toolmesh's own facts about a tool go in MCP `_meta` (a reverse-DNS prefix, as the spec asks). */
export const META_PREFIX = "io.toolmesh";

const isObjectSchema = (schema: Record<string, unknown>) => schema.type === "object";

/**
 * A catalog tool as MCP lists it: inputSchema = parameters_schema (MCP requires an object schema, so one
 * without a `type` is given `type: object`), outputSchema and annotations when the manifest has them.
 */
export function toMcpTool(tool: CatalogTool): Tool {
  const inputSchema = { ...tool.parameters_schema, type: "object" } as Tool["inputSchema"];
  const annotations = tool.annotations as Tool["annotations"] | undefined;
  return {
    name: tool.name,
    description: tool.description,
    inputSchema,
    ...(tool.output_schema && isObjectSchema(tool.output_schema) ? { outputSchema: tool.output_schema as Tool["outputSchema"] } : {}),
    ...(annotations ? { annotations, ...(typeof annotations.title === "string" ? { title: annotations.title } : {}) } : {}),
    _meta: {
      [`${META_PREFIX}/tool_id`]: tool.tool_id,
      [`${META_PREFIX}/content_hash`]: tool.content_hash,
      ...(tool.group ? { [`${META_PREFIX}/group`]: tool.group } : {}),
    },
  };
}

/** Where a tools/list page starts: the revision it lists (pages stay on one revision) and an offset. */
export interface ListCursor {
  revision: number;
  offset: number;
}

export function encodeCursor(cursor: ListCursor): string {
  return Buffer.from(JSON.stringify([cursor.revision, cursor.offset])).toString("base64url");
}

/** Undefined for anything this server did not hand out. */
export function decodeCursor(text: string): ListCursor | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    if (!Array.isArray(value) || value.length !== 2) return undefined;
    const [revision, offset] = value as unknown[];
    if (!Number.isSafeInteger(revision) || !Number.isSafeInteger(offset)) return undefined;
    if ((revision as number) < 1 || (offset as number) < 0) return undefined;
    return { revision: revision as number, offset: offset as number };
  } catch {
    return undefined;
  }
}
