import { describe, expect, it } from "vitest";
import { EnvError } from "@toolmesh/base";
import { loadEnv } from "../../src/env.js";

describe("GatewayEnv", () => {
  it("defaults to an open gateway on 127.0.0.1:8088 with 30 s / 300 s / 45 s timeouts", () => {
    const env = loadEnv({});
    expect(env).toMatchObject({
      HTTP_HOST: "127.0.0.1",
      HTTP_PORT: 8088,
      GATEWAY_REQUEST_TIMEOUT_MS: 30_000,
      GATEWAY_AGENT_TIMEOUT_MS: 300_000,
      GATEWAY_MCP_TOOL_TIMEOUT_MS: 45_000,
      GATEWAY_TOOL_CLIENT_IDLE_MS: 300_000,
      GATEWAY_MAX_TOOL_CLIENTS: 256,
      TOOLMESH_ALLOWED_TENANTS: [],
    });
    expect(env.GATEWAY_TOKEN).toBeUndefined();
  });

  it("reads the token and coerces timeouts; an empty token means open", () => {
    const env = loadEnv({ GATEWAY_TOKEN: "s3cret-s3cret-s3cret", GATEWAY_REQUEST_TIMEOUT_MS: "500", HTTP_PORT: "0" });
    expect(env).toMatchObject({ GATEWAY_TOKEN: "s3cret-s3cret-s3cret", GATEWAY_REQUEST_TIMEOUT_MS: 500, HTTP_PORT: 0 });
    expect(loadEnv({ GATEWAY_TOKEN: "" }).GATEWAY_TOKEN).toBeUndefined();
  });

  it("refuses a short token or one with whitespace, naming the variable", () => {
    expect(() => loadEnv({ GATEWAY_TOKEN: "x" })).toThrow(/GATEWAY_TOKEN="x": use at least 16 characters/);
    expect(() => loadEnv({ GATEWAY_TOKEN: "fifteen-chars15" })).toThrow(/at least 16 characters/);
    expect(() => loadEnv({ GATEWAY_TOKEN: "a token with spaces in it" })).toThrow(/GATEWAY_TOKEN=.*must not contain whitespace/);
    expect(() => loadEnv({ GATEWAY_TOKEN: "                " })).toThrow(/whitespace/);
    expect(loadEnv({ GATEWAY_TOKEN: "sixteen-chars-16" }).GATEWAY_TOKEN).toBe("sixteen-chars-16");
  });

  it("reads the tenants tool queues may use besides the system's own", () => {
    expect(loadEnv({ TOOLMESH_ALLOWED_TENANTS: "tgb,staging" }).TOOLMESH_ALLOWED_TENANTS).toEqual(["tgb", "staging"]);
    expect(() => loadEnv({ TOOLMESH_ALLOWED_TENANTS: "tgb/x" })).toThrow(/TOOLMESH_ALLOWED_TENANTS="tgb\/x"/);
  });

  it("names a bad timeout and its value", () => {
    expect(() => loadEnv({ GATEWAY_AGENT_TIMEOUT_MS: "soon" })).toThrow(EnvError);
    expect(() => loadEnv({ GATEWAY_REQUEST_TIMEOUT_MS: "-5" })).toThrow(/GATEWAY_REQUEST_TIMEOUT_MS="-5"/);
  });
});
