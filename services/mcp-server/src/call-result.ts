import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { CatalogTool } from "@toolmesh/schema";
import type { ToolOutput } from "./binding-invoker.js";

/** A tool-level failure as MCP clients expect it: a result with `isError`, readable by a model. */
export function errorResult(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/**
 * A tool's output as a tools/call result: text -> text content; a JSON object -> structuredContent plus
 * its JSON text (for clients that read only content); content parts as they came. A tool declaring an
 * output schema must give structured content, so text that is not a JSON object is an error there.
 */
export function toCallResult(tool: CatalogTool, output: ToolOutput): CallToolResult {
  switch (output.kind) {
    case "json":
      return { content: [{ type: "text", text: JSON.stringify(output.value) }], structuredContent: output.value };
    case "content":
      if (tool.output_schema) return errorResult(`tool ${tool.name} declares an output schema but returned no JSON object`);
      return { content: output.parts as CallToolResult["content"] };
    case "text":
      if (tool.output_schema)
        return errorResult(
          `tool ${tool.name} declares an output schema but returned text that is not a JSON object: ${output.text.slice(0, 200)}`,
        );
      return { content: [{ type: "text", text: output.text }] };
  }
}
