import { SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { OAuthError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";

/**
 * Why talking to one server failed, as the handler needs to know it:
 * - `rejected`: the server answered with a JSON-RPC error (unknown tool, bad arguments): the session is fine
 * - `timeout`: no answer within the request's time
 * - `transport`: the connection or the HTTP exchange failed
 */
export type McpFailureKind = "rejected" | "timeout" | "transport";

/** A failure talking to one server; the message names the server's url. */
export class McpServerError extends Error {
  override name = "McpServerError";
  constructor(
    message: string,
    readonly kind: McpFailureKind,
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

/** The session was taken out of the pool between being handed to a call and its use: nothing was sent. */
export class SessionRetiredError extends Error {
  override name = "SessionRetiredError";
  constructor() {
    super("the session was closed before the request was sent");
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

function networkCode(err: unknown): string | undefined {
  const cause = err instanceof Error ? (err as { cause?: unknown }).cause : undefined;
  const code = cause instanceof Error ? (cause as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : undefined;
}

function networkReason(err: Error): string | undefined {
  const code = networkCode(err);
  if (code !== undefined) return `${NETWORK_CODES[code] ?? "network error"} (${code})`;
  const cause = (err as { cause?: unknown }).cause;
  return cause instanceof Error ? cause.message : undefined;
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

export function isTimeout(err: unknown): boolean {
  return err instanceof DeadlineError || (err instanceof McpError && err.code === ErrorCode.RequestTimeout);
}

/** What the request sent that a server could refuse: an Authorization header (from `auth-token`), a token got with `oauth2`, or neither. */
export interface SentCredentials {
  token: boolean;
  oauth2?: boolean;
}

function credentialReason(status: 401 | 403, sent: SentCredentials): string {
  if (sent.oauth2) {
    return status === 401
      ? "HTTP 401 Unauthorized: the server refused the OAuth 2 token (check the entry's oauth2 credentials and issuer)"
      : "HTTP 403 Forbidden: the server refused the OAuth 2 token (it grants too little: check the entry's oauth2 scope)";
  }
  if (status === 401) {
    return sent.token
      ? "HTTP 401 Unauthorized: the server refused the token (check the entry's 'auth-token' or Authorization header)"
      : "HTTP 401 Unauthorized: the server wants credentials; set the entry's 'auth-token' (or an Authorization header, or 'oauth2')";
  }
  return sent.token
    ? "HTTP 403 Forbidden: the server refused the token (it does not grant access to this server or tool)"
    : "HTTP 403 Forbidden: the server refused the request; it may want credentials (set the entry's 'auth-token' or 'oauth2')";
}

/** An OAuth 2 error the MCP SDK's authorization flow raised (the authorization server's `error` code), if it is one. */
function oauthReason(err: unknown): string | undefined {
  if (!(err instanceof OAuthError)) return undefined;
  const detail = err.message ? `: ${shortDetail(err.message)}` : "";
  return `OAuth 2: the authorization server answered ${err.errorCode}${detail} (check the entry's oauth2 client-id, client-secret and scope)`;
}

/** One phrase saying why talking to a server failed, for an error reply a person can act on. */
export function failureReason(err: unknown, sent: SentCredentials = { token: false }): string {
  if (err instanceof DeadlineError) return err.message;
  if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
    const ms = (err.data as { timeout?: unknown } | undefined)?.timeout;
    return typeof ms === "number" ? `no answer within ${ms} ms` : "no answer in time (request timed out)";
  }
  if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) return "the connection closed";
  const oauth = oauthReason(err);
  if (oauth) return oauth;
  const status = httpStatus(err);
  if (status === 401 || status === 403) return credentialReason(status, sent);
  if (status !== undefined) return `HTTP ${status}: ${shortDetail((err as Error).message)}`;
  if (err instanceof Error) return networkReason(err) ?? shortDetail(err.message);
  return String(err);
}

/**
 * What a failed request says about its session:
 * - `call`: the call's own problem (a JSON-RPC error reply, a timeout, a result the SDK could not read, a
 *   4xx about this one request such as 413); the session stays, and so do the other calls on it
 * - `not-dispatched`: the server never took the request - it no longer knows the session (404, or 400 as
 *   some servers answer) or the connection was refused - so the session goes and one retry is safe
 * - `broken`: the connection or the server failed in a way that may have run the call (reset, closed
 *   stream, 5xx) or that no retry mends (401/403): the session goes, the call is not retried
 */
export type SessionVerdict = "call" | "not-dispatched" | "broken";

export function sessionVerdict(err: unknown): SessionVerdict {
  if (isTimeout(err)) return "call";
  if (err instanceof SessionRetiredError) return "not-dispatched";
  if (err instanceof McpError) return err.code === ErrorCode.ConnectionClosed ? "broken" : "call";
  if (err instanceof Error && /ZodError$/.test(err.name)) return "call";
  const status = httpStatus(err);
  if (status === 404 || status === 400) return "not-dispatched";
  if (status === 401 || status === 403 || (status !== undefined && status >= 500)) return "broken";
  if (status !== undefined) return "call";
  if (networkCode(err) === "ECONNREFUSED") return "not-dispatched";
  return "broken";
}

/** How the handler should treat a failure (see McpFailureKind). */
export function failureKind(err: unknown): McpFailureKind {
  if (isTimeout(err)) return "timeout";
  if (err instanceof McpError && err.code !== ErrorCode.ConnectionClosed) return "rejected";
  return "transport";
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
