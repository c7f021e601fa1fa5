import { InvalidClientError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { DeadlineError, SessionRetiredError, failureKind, failureReason, sessionVerdict, suggestsSseServer } from "../../src/mcp-errors.js";

const http = (status: number, body = "") => new StreamableHTTPError(status, `Error POSTing to endpoint: ${body}`);
const network = (code: string, message = code) => new TypeError("fetch failed", { cause: Object.assign(new Error(message), { code }) });
const refused = () => network("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:9");

describe("classifying failures", () => {
  it("falls back to SSE on 4xx except credential refusals", () => {
    expect(suggestsSseServer(http(404))).toBe(true);
    expect(suggestsSseServer(http(405))).toBe(true);
    expect(suggestsSseServer(http(400))).toBe(true);
    expect(suggestsSseServer(http(401))).toBe(false);
    expect(suggestsSseServer(http(403))).toBe(false);
    expect(suggestsSseServer(http(500))).toBe(false);
    expect(suggestsSseServer(refused())).toBe(false);
  });

  it("keeps the session for the call's own failures: timeouts, error replies, unreadable results, 413", () => {
    expect(sessionVerdict(new McpError(ErrorCode.RequestTimeout, "Request timed out"))).toBe("call");
    expect(sessionVerdict(new DeadlineError(500))).toBe("call");
    expect(sessionVerdict(new McpError(ErrorCode.InvalidParams, "Tool x not found"))).toBe("call");
    expect(sessionVerdict(Object.assign(new Error("bad result"), { name: "ZodError" }))).toBe("call");
    expect(sessionVerdict(http(413, "Payload Too Large"))).toBe("call");
  });

  it("retries only what the server cannot have run: a forgotten session or a refused connection", () => {
    expect(sessionVerdict(http(404))).toBe("not-dispatched");
    expect(sessionVerdict(http(400))).toBe("not-dispatched");
    expect(sessionVerdict(refused())).toBe("not-dispatched");
    expect(sessionVerdict(new SessionRetiredError())).toBe("not-dispatched");
  });

  it("drops without retry what may have run or what no retry mends", () => {
    expect(sessionVerdict(network("UND_ERR_SOCKET", "other side closed"))).toBe("broken");
    expect(sessionVerdict(network("ECONNRESET"))).toBe("broken");
    expect(sessionVerdict(new McpError(ErrorCode.ConnectionClosed, "Connection closed"))).toBe("broken");
    expect(sessionVerdict(http(500))).toBe("broken");
    expect(sessionVerdict(http(503))).toBe("broken");
    expect(sessionVerdict(http(401))).toBe("broken");
    expect(sessionVerdict(http(403))).toBe("broken");
  });

  it("tells the handler whether the server answered, timed out, or the transport failed", () => {
    expect(failureKind(new McpError(ErrorCode.InvalidParams, "Tool x not found"))).toBe("rejected");
    expect(failureKind(new DeadlineError(1))).toBe("timeout");
    expect(failureKind(new McpError(ErrorCode.RequestTimeout, "Request timed out"))).toBe("timeout");
    expect(failureKind(new McpError(ErrorCode.ConnectionClosed, "Connection closed"))).toBe("transport");
    expect(failureKind(http(404))).toBe("transport");
  });
});

describe("failureReason", () => {
  it("says what went wrong in words a person can act on", () => {
    expect(failureReason(refused())).toBe("connection refused (ECONNREFUSED)");
    expect(failureReason(network("UND_ERR_SOCKET", "other side closed"))).toBe("the server closed the connection (UND_ERR_SOCKET)");
    expect(failureReason(new DeadlineError(1500))).toBe("no answer within 1500 ms");
    expect(
      failureReason(http(400, '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}')),
    ).toBe("HTTP 400: Bad Request: No valid session ID provided");
    expect(failureReason(http(404, "<html><body><pre>Cannot POST /sse</pre></body></html>"))).toBe(
      "HTTP 404: Error POSTing to endpoint: Cannot POST /sse",
    );
    expect(failureReason(new McpError(ErrorCode.RequestTimeout, "Request timed out", { timeout: 500 }))).toBe("no answer within 500 ms");
    expect(failureReason(new McpError(ErrorCode.RequestTimeout, "Request timed out"))).toBe("no answer in time (request timed out)");
  });

  it("asks for a token when none was sent, and says a sent token was refused", () => {
    expect(failureReason(http(401))).toBe(
      "HTTP 401 Unauthorized: the server wants credentials; set the entry's 'auth-token' (or an Authorization header, or 'oauth2')",
    );
    expect(failureReason(http(401), { token: true })).toBe(
      "HTTP 401 Unauthorized: the server refused the token (check the entry's 'auth-token' or Authorization header)",
    );
    expect(failureReason(http(403), { token: true })).toBe(
      "HTTP 403 Forbidden: the server refused the token (it does not grant access to this server or tool)",
    );
    expect(failureReason(http(403))).toMatch(/^HTTP 403 Forbidden: .*'auth-token'/);
  });

  it("names the OAuth 2 side: the authorization server's error code, or the server refusing the token it got", () => {
    expect(failureReason(new InvalidClientError("Client authentication failed"))).toBe(
      "OAuth 2: the authorization server answered invalid_client: Client authentication failed (check the entry's oauth2 client-id, client-secret and scope)",
    );
    expect(failureReason(http(401), { token: false, oauth2: true })).toBe(
      "HTTP 401 Unauthorized: the server refused the OAuth 2 token (check the entry's oauth2 credentials and issuer)",
    );
    expect(failureReason(http(403), { token: false, oauth2: true })).toBe(
      "HTTP 403 Forbidden: the server refused the OAuth 2 token (it grants too little: check the entry's oauth2 scope)",
    );
  });
});
