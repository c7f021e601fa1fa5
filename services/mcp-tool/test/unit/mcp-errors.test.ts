import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { DeadlineError, failureReason, isSessionFailure, refusedBeforeDispatch, suggestsSseServer } from "../../src/mcp-errors.js";

const http = (status: number, body = "") => new StreamableHTTPError(status, `Error POSTing to endpoint: ${body}`);
const refused = () => new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" }) });

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

  it("tells a broken session from a JSON-RPC error on a healthy one", () => {
    expect(isSessionFailure(refused())).toBe(true);
    expect(isSessionFailure(http(404))).toBe(true);
    expect(isSessionFailure(new McpError(ErrorCode.RequestTimeout, "Request timed out"))).toBe(true);
    expect(isSessionFailure(new McpError(ErrorCode.ConnectionClosed, "Connection closed"))).toBe(true);
    expect(isSessionFailure(new McpError(ErrorCode.InvalidParams, "Tool x not found"))).toBe(false);
  });

  it("retries only HTTP refusals that mean the server forgot the session", () => {
    expect(refusedBeforeDispatch(http(404))).toBe(true);
    expect(refusedBeforeDispatch(http(400))).toBe(true);
    expect(refusedBeforeDispatch(http(500))).toBe(false);
    expect(refusedBeforeDispatch(refused())).toBe(false);
  });
});

describe("failureReason", () => {
  it("says what went wrong in words a person can act on", () => {
    expect(failureReason(refused())).toBe("connection refused (ECONNREFUSED)");
    expect(failureReason(new DeadlineError(1500))).toBe("no answer within 1500 ms");
    expect(failureReason(http(401))).toMatch(/^HTTP 401 Unauthorized: .*'auth-token'/);
    expect(failureReason(http(400, '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}'))).toBe(
      "HTTP 400: Bad Request: No valid session ID provided",
    );
    expect(failureReason(http(404, "<html><body><pre>Cannot POST /sse</pre></body></html>"))).toBe(
      "HTTP 404: Error POSTing to endpoint: Cannot POST /sse",
    );
    expect(failureReason(new McpError(ErrorCode.RequestTimeout, "Request timed out", { timeout: 500 }))).toBe("no answer within 500 ms");
    expect(failureReason(new McpError(ErrorCode.RequestTimeout, "Request timed out"))).toBe("no answer in time (request timed out)");
  });
});
