import { describe, expect, it } from "vitest";
import { EnvError } from "@toolmesh/base";
import { loadEnv } from "../../src/env.js";

describe("GatewayEnv", () => {
  it("defaults to an open gateway on 127.0.0.1:8088 with 30 s / 120 s timeouts", () => {
    const env = loadEnv({});
    expect(env).toMatchObject({ HTTP_HOST: "127.0.0.1", HTTP_PORT: 8088, GATEWAY_REQUEST_TIMEOUT_MS: 30_000, GATEWAY_AGENT_TIMEOUT_MS: 120_000 });
    expect(env.GATEWAY_TOKEN).toBeUndefined();
  });

  it("reads the token and coerces timeouts; an empty token means open", () => {
    const env = loadEnv({ GATEWAY_TOKEN: "s3cret", GATEWAY_REQUEST_TIMEOUT_MS: "500", HTTP_PORT: "0" });
    expect(env).toMatchObject({ GATEWAY_TOKEN: "s3cret", GATEWAY_REQUEST_TIMEOUT_MS: 500, HTTP_PORT: 0 });
    expect(loadEnv({ GATEWAY_TOKEN: "" }).GATEWAY_TOKEN).toBeUndefined();
  });

  it("names a bad timeout and its value", () => {
    expect(() => loadEnv({ GATEWAY_AGENT_TIMEOUT_MS: "soon" })).toThrow(EnvError);
    expect(() => loadEnv({ GATEWAY_REQUEST_TIMEOUT_MS: "-5" })).toThrow(/GATEWAY_REQUEST_TIMEOUT_MS="-5"/);
  });
});
