import { ErrorType, type McpToolResponse } from "@toolmesh/schema";

/** A content part of a tools/call result; only `text` parts are read as text. */
export interface ContentPart {
  type: string;
  text?: unknown;
  [field: string]: unknown;
}

/**
 * What a tools/call returns: a CallToolResult, or the older `{toolResult}` form that protocol version
 * 2024-10-07 servers send (the SDK accepts both).
 */
export interface ToolCallResult {
  content?: ContentPart[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  toolResult?: unknown;
  [field: string]: unknown;
}

function textOf(content: readonly ContentPart[]): string[] {
  return content.filter((part) => part.type === "text" && typeof part.text === "string").map((part) => part.text as string);
}

/**
 * Maps a tools/call result to the mcp-tool reply (design §2):
 * - `isError: true`      -> error {type: "mcp-tool-error", message: the text parts}
 * - `structuredContent`  -> object = its JSON, text null
 * - text parts           -> text = them joined by "\n" (other parts such as images are dropped)
 * - only non-text parts  -> object = the content array as JSON, so nothing the tool said is lost
 */
export function toWireReply(result: ToolCallResult): McpToolResponse {
  const content = Array.isArray(result.content) ? result.content : [];
  const texts = textOf(content);
  if (result.isError === true) {
    const message =
      texts.length > 0
        ? texts.join("\n")
        : `the tool reported an error without a text message${content.length > 0 ? `: ${JSON.stringify(content)}` : ""}`;
    return { error: { type: ErrorType.mcpToolError, message }, text: null, object: null };
  }
  if (result.structuredContent !== undefined && result.structuredContent !== null) {
    return { error: null, text: null, object: JSON.stringify(result.structuredContent) };
  }
  if (texts.length > 0) return { error: null, text: texts.join("\n"), object: null };
  if (content.length > 0) return { error: null, text: null, object: JSON.stringify(content) };
  if (result.toolResult !== undefined) {
    return typeof result.toolResult === "string"
      ? { error: null, text: result.toolResult, object: null }
      : { error: null, text: null, object: JSON.stringify(result.toolResult) };
  }
  // A tool may legitimately return nothing; an empty text says "done" without inventing content.
  return { error: null, text: "", object: null };
}
