import { describe, expect, it } from "vitest";
import { ErrorType, ServiceError, errorStatus } from "../../src/errors.js";

describe("the error vocabulary", () => {
  it("gives every error type one HTTP status", () => {
    const statuses = Object.fromEntries(Object.values(ErrorType).map((type) => [type, errorStatus(type)]));
    expect(statuses).toEqual({
      "bad-request": 400,
      "bad-operation": 400,
      unauthorized: 401,
      forbidden: 403,
      "not-found": 404,
      "unknown-service": 404,
      "tool-service-error": 502,
      "mcp-tool-error": 502,
      "config-error": 502,
      "tool-registry-error": 502,
      "agent-error": 502,
      timeout: 504,
      "too-large": 413,
      overloaded: 503,
      unavailable: 503,
      "bad-gateway": 502,
      "internal-error": 500,
    });
    expect(errorStatus("__proto__")).toBe(500);
    expect(errorStatus("quota-exceeded")).toBe(500);
  });

  it("carries its wire type, message and status, and renders the one body shape", () => {
    const error = new ServiceError(ErrorType.notFound, "no agent run 'r1'");
    expect(error).toBeInstanceOf(Error);
    expect(error.status).toBe(404);
    expect(error.wire).toEqual({ type: "not-found", message: "no agent run 'r1'" });
    expect(error.body).toEqual({ error: { type: "not-found", message: "no agent run 'r1'" } });
  });
});
