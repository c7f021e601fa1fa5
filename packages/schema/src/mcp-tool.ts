import { z } from "zod";
import { NullableWireError } from "./errors.js";
import { jsonEncodedObject } from "./json-string.js";

/** Request to the MCP-tool gateway (seed 003): `name` is the key of an `mcp` config entry. */
export const McpToolRequest = z.object({
  name: z.string().min(1, "name is required: the key of an 'mcp' config entry"),
  parameters: jsonEncodedObject(),
  /** toolmesh addition: "list-tools" returns the server's tools/list in `object`. TrustGraph peers omit it. */
  operation: z.enum(["call", "list-tools"]).default("call"),
});
export type McpToolRequest = z.output<typeof McpToolRequest>;
export type McpToolRequestWire = z.input<typeof McpToolRequest>;

/** Text content arrives in `text`, structured content as a JSON string in `object`. */
export const McpToolResponse = z.object({
  error: NullableWireError,
  text: z.string().nullable().default(null),
  object: z.string().nullable().default(null),
});
export type McpToolResponse = z.output<typeof McpToolResponse>;
