import { z } from "zod";
import { JsonObject } from "./json-string.js";
import { ToolName } from "./descriptors.js";

/** How a catalog tool is invoked. */
export const ToolBinding = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("tool-service"),
    request_topic: z.string().min(1),
    response_topic: z.string().min(1),
    config: JsonObject.default({}),
  }),
  z.object({ kind: z.literal("mcp-tool"), mcp_tool: z.string().min(1) }),
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
});
export type ManifestEntry = z.output<typeof ManifestEntry>;

export const Manifest = z.array(ManifestEntry);
export type Manifest = z.output<typeof Manifest>;
