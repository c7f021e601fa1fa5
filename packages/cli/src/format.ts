import type { AgentResponse, ToolServiceResponse } from "@toolmesh/schema";

export function prettyJson(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** A stored or transported JSON string, pretty-printed; text that is not JSON is shown as it is. */
export function prettyJsonText(text: string): string {
  try {
    return prettyJson(JSON.parse(text));
  } catch {
    return text;
  }
}

function cell(value: string): string {
  return value.replace(/\s*\n\s*/g, " ");
}

/** Left-aligned columns two spaces apart, a header row first; no trailing spaces. */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [headers, ...rows].map((row) => headers.map((_, i) => cell(row[i] ?? "")));
  const widths = headers.map((_, i) => Math.max(...all.map((row) => row[i]!.length)));
  return all
    .map((row) =>
      row
        .map((value, i) => value.padEnd(widths[i]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function text(value: unknown): string {
  return typeof value === "string" ? value : value === undefined || value === null ? "" : JSON.stringify(value);
}

export const TOOL_COLUMNS = ["id", "name", "type", "service/mcp-tool", "description", "arguments"] as const;

/** Rows for `show-tools`; a stored value that is not a JSON object still gets a row saying so. */
export function toolRows(items: readonly { key: string; value: string }[]): string[][] {
  return items.map(({ key, value }) => {
    const tool = parseObject(value);
    if (!tool) return [key, "", "", "", "(not a JSON object)", ""];
    const args = Array.isArray(tool.arguments)
      ? tool.arguments.map((a: { name?: unknown; type?: unknown }) => `${text(a?.name)}:${text(a?.type ?? "string")}`)
      : [];
    return [key, text(tool.name), text(tool.type), text(tool.service ?? tool["mcp-tool"]), text(tool.description), args.join(", ")];
  });
}

export const MCP_COLUMNS = ["id", "url", "remote-name", "transport", "auth-token", "oauth2", "headers"] as const;

/** An entry's oauth2 credentials as the client id (and scope); never the secret. */
function oauth2Summary(oauth2: unknown): string {
  if (!oauth2 || typeof oauth2 !== "object") return "";
  const { "client-id": clientId, scope } = oauth2 as { "client-id"?: unknown; scope?: unknown };
  return `client ${text(clientId)}${scope ? ` (${text(scope)})` : ""}`;
}

/** Rows for `show-mcp-tools`; secrets are never printed, only whether they are set. */
export function mcpRows(items: readonly { key: string; value: string }[]): string[][] {
  return items.map(({ key, value }) => {
    const mcp = parseObject(value);
    if (!mcp) return [key, "(not a JSON object)", "", "", "", "", ""];
    const headers = mcp.headers && typeof mcp.headers === "object" ? Object.keys(mcp.headers) : [];
    return [
      key,
      text(mcp.url),
      text(mcp["remote-name"]),
      text(mcp.transport ?? "auto"),
      mcp["auth-token"] ? "(set)" : "",
      oauth2Summary(mcp.oauth2),
      headers.join(", "),
    ];
  });
}

/** A tool service's streamed replies, in order, as one text. */
export function joinResponses(replies: readonly ToolServiceResponse[]): string {
  return replies.map((r) => r.response).join("");
}

/** What an MCP tool returned: its text, else its structured object pretty-printed. */
export function mcpToolOutput(reply: { text?: string | undefined; object?: unknown }): string | undefined {
  if (reply.text !== undefined) return reply.text;
  if (reply.object !== undefined) return JSON.stringify(reply.object, null, 2);
  return undefined;
}

export interface AgentTranscript {
  /** Lines for stdout, in order: `thought: ...`, `observation: ...`, then the answer on its own. */
  lines: string[];
  /** The first error, if any; nothing after it is shown. */
  error?: string;
}

/**
 * Renders the agent's messages. Streamed chunks (`end_of_message: false`) of one message are joined
 * before printing, so a message is one entry however it was streamed.
 */
export function agentTranscript(messages: readonly AgentResponse[]): AgentTranscript {
  const lines: string[] = [];
  let pending: { type: AgentResponse["message_type"]; content: string } | undefined;
  const flush = () => {
    if (!pending) return;
    lines.push(pending.type === "answer" ? pending.content : `${pending.type}: ${pending.content}`);
    pending = undefined;
  };
  for (const message of messages) {
    if (message.error || message.message_type === "error") {
      flush();
      const error = message.error ? `${message.error.type}: ${message.error.message}` : message.content;
      return { lines, error: error || "the agent reported an error" };
    }
    if (pending && pending.type !== message.message_type) flush();
    pending = { type: message.message_type, content: (pending?.content ?? "") + message.content };
    if (message.end_of_message) flush();
  }
  flush();
  return { lines };
}
