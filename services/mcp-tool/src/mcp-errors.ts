import { SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";

/**
 * A failure talking to one server; the message names the server's url. `sessionFailure` is false when
 * the server itself answered with a JSON-RPC error (so the session is fine and the call was refused).
 */
export class McpServerError extends Error {
  override name = "McpServerError";
  constructor(
    message: string,
    readonly sessionFailure: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Our own deadline passed (the SDK's request timeouts arrive as McpError RequestTimeout instead). */
export class DeadlineError extends Error {
  override name = "DeadlineError";
  constructor(readonly ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

/** The HTTP status a server answered with, when the failure is an HTTP-level refusal. */
export function httpStatus(err: unknown): number | undefined {
  if (err instanceof StreamableHTTPError || err instanceof SseError) {
    return typeof err.code === "number" && err.code >= 100 && err.code < 600 ? err.code : undefined;
  }
  return undefined;
}

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  ETIMEDOUT: "connection timed out",
  EHOSTUNREACH: "host unreachable",
  UND_ERR_SOCKET: "the server closed the connection",
};

function networkReason(err: Error): string | undefined {
  const cause = (err as { cause?: unknown }).cause;
  if (!(cause instanceof Error)) return undefined;
  const code = (cause as { code?: unknown }).code;
  if (typeof code === "string") return `${NETWORK_CODES[code] ?? "network error"} (${code})`;
  return cause.message;
}

/** The `error.message` of a JSON-RPC error body quoted in the SDK's message, when there is one. */
function jsonRpcMessage(message: string): string | undefined {
  const start = message.indexOf("{");
  if (start < 0) return undefined;
  try {
    const body = JSON.parse(message.slice(start)) as { error?: { message?: unknown } };
    return typeof body.error?.message === "string" ? body.error.message : undefined;
  } catch {
    return undefined;
  }
}

function shortDetail(message: string): string {
  const cleaned = (jsonRpcMessage(message) ?? message)
    .replace(/^(Streamable HTTP error|SSE error):\s*/, "")
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return cleaned.length > 200 ? `${cleaned.slice(0, 200)}...` : cleaned;
}

/** One phrase saying why talking to a server failed, for an error reply a person can act on. */
export function failureReason(err: unknown): string {
  if (err instanceof DeadlineError) return err.message;
  if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
    const ms = (err.data as { timeout?: unknown } | undefined)?.timeout;
    return typeof ms === "number" ? `no answer within ${ms} ms` : "no answer in time (request timed out)";
  }
  if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) return "the connection closed";
  const status = httpStatus(err);
  if (status === 401) return "HTTP 401 Unauthorized: the server wants credentials; set the entry's 'auth-token' (or an Authorization header)";
  if (status === 403) return "HTTP 403 Forbidden: the server refused these credentials";
  if (status !== undefined) return `HTTP ${status}: ${shortDetail((err as Error).message)}`;
  if (err instanceof Error) return networkReason(err) ?? shortDetail(err.message);
  return String(err);
}

/**
 * True when the failure is about the session or the connection (network, HTTP status, closed, timed out),
 * false for a JSON-RPC error the server sent back on a healthy session (unknown tool, bad arguments).
 */
export function isSessionFailure(err: unknown): boolean {
  if (err instanceof McpError) return err.code === ErrorCode.ConnectionClosed || err.code === ErrorCode.RequestTimeout;
  return true;
}

/**
 * The server refused the message at the HTTP level, so the tool did not run. On a session that worked
 * before this means the server forgot it (restart, expiry: 404 by the spec, 400 in some servers), and a
 * retry on a new session is safe.
 */
export function refusedBeforeDispatch(err: unknown): boolean {
  const status = httpStatus(err);
  return err instanceof StreamableHTTPError && (status === 404 || status === 400);
}

/**
 * Streamable HTTP failed in a way an older, SSE-only server produces (any 4xx, as the MCP spec's
 * backwards-compatibility section says) - except 401/403, which are about credentials and would fail over
 * SSE too, only with a vaguer message.
 */
export function suggestsSseServer(err: unknown): boolean {
  const status = httpStatus(err);
  return status !== undefined && status >= 400 && status < 500 && status !== 401 && status !== 403;
}
