import { z } from "zod";
import { JsonObject } from "./json-string.js";
import { QueueId, ToolName } from "./descriptors.js";

/**
 * How a catalog tool is invoked. Topics may be written in either TrustGraph form (`request:tg:joke` or
 * `non-persistent://tg/request/joke`) and are parsed to full topic names. An mcp-tool binding without
 * topics goes to toolmesh's MCP-tool gateway; with them, to that gateway (e.g. TrustGraph's processor).
 */
export const ToolBinding = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("tool-service"),
    request_topic: QueueId,
    response_topic: QueueId,
    config: JsonObject.default({}),
  }),
  z
    .object({
      kind: z.literal("mcp-tool"),
      mcp_tool: z.string().min(1),
      request_topic: QueueId.optional(),
      response_topic: QueueId.optional(),
    })
    .refine((b) => (b.request_topic === undefined) === (b.response_topic === undefined), {
      message: "an mcp-tool binding names both request_topic and response_topic, or neither",
    }),
  z.object({ kind: z.literal("text-completion") }),
]);
export type ToolBinding = z.output<typeof ToolBinding>;

/** One entry of `GET /tools/manifest` or an announcement (seed 004). */
export const ManifestEntry = z.object({
  tool_id: z.string().min(1),
  name: ToolName,
  description: z.string().default(""),
  parameters_schema: JsonObject,
  binding: ToolBinding,
  /** Tool groups (TrustGraph's `group`); a tool without one is in group "default". See `inToolGroups`. */
  group: z.array(z.string().min(1)).optional(),
  /** JSON Schema of a JSON result, offered to MCP clients as `outputSchema`. */
  output_schema: JsonObject.optional(),
  /** MCP tool annotations (`readOnlyHint`, `title`, ...), passed through to MCP clients. */
  annotations: JsonObject.optional(),
});
export type ManifestEntry = z.output<typeof ManifestEntry>;

export const Manifest = z.array(ManifestEntry);
export type Manifest = z.output<typeof Manifest>;

/** The group of tools that name none (TrustGraph's rule). */
export const DEFAULT_TOOL_GROUP = "default";

/**
 * Whether a tool is offered to a request naming `groups`: null or empty = every tool; `*` = every tool;
 * otherwise the tool's groups (or "default" when it names none) must meet the requested ones.
 */
export function inToolGroups(tool: Pick<ManifestEntry, "group">, groups: readonly string[] | null | undefined): boolean {
  if (!groups || groups.length === 0 || groups.includes("*")) return true;
  const own = tool.group && tool.group.length > 0 ? tool.group : [DEFAULT_TOOL_GROUP];
  return own.some((g) => groups.includes(g));
}
