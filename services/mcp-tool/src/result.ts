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
 * The Python MCP SDK sends a `-> str` tool's return value twice: as text content and as structuredContent
 * `{"result": "<the same text>"}` (its wrapper for return types that are not objects). That is the text,
 * not an object; a `result` field whose value differs from the text is the tool's own structure and stays.
 */
function wrappedText(structured: Record<string, unknown>, texts: readonly string[]): string | undefined {
  const keys = Object.keys(structured);
  const value = structured.result;
  return keys.length === 1 && typeof value === "string" && texts.join("\n") === value ? value : undefined;
}

/**
 * Maps a tools/call result to the mcp-tool reply (design §2). TrustGraph's mcp-tool answers
 * structuredContent as `object` and otherwise the text as `text`, and its clients read `text` when it is
 * set and `object` otherwise - so exactly one of them is set, and whatever is not plain text goes in
 * `object`:
 * - `isError: true`               -> error {type: "mcp-tool-error", message: the text parts}
 * - structuredContent             -> object = its JSON (a Python `-> str` wrapper `{"result"}` -> text)
 * - only text parts               -> text = them joined by "\n"
 * - any image, audio or resource  -> object = the content array as JSON (text parts included), so an
 *                                    image is never dropped
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
    const text = wrappedText(result.structuredContent, texts);
    if (text !== undefined) return { error: null, text, object: null };
    return { error: null, text: null, object: JSON.stringify(result.structuredContent) };
  }
  if (texts.length < content.length) return { error: null, text: null, object: JSON.stringify(content) };
  if (texts.length > 0) return { error: null, text: texts.join("\n"), object: null };
  if (result.toolResult !== undefined) {
    return typeof result.toolResult === "string"
      ? { error: null, text: result.toolResult, object: null }
      : { error: null, text: null, object: JSON.stringify(result.toolResult) };
  }
  // A tool may legitimately return nothing; an empty text says "done" without inventing content.
  return { error: null, text: "", object: null };
}
