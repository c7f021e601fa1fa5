import { describe, expect, it } from "vitest";
import { EnvError } from "@toolmesh/base";
import { loadEnv } from "../../src/env.js";

describe("mcp-server env", () => {
  it("has defaults for everything", () => {
    const env = loadEnv({});
    expect(env).toMatchObject({
      HTTP_PORT: 8706,
      MCP_CALL_TIMEOUT_MS: 30_000,
      MCP_PAGE_SIZE: 500,
      MCP_AUTHORIZATION_SERVERS: [],
      MCP_SESSION_IDLE_MS: 1_800_000,
    });
    expect(env.GATEWAY_TOKEN).toBeUndefined();
  });

  it("reads a list of authorization servers, which needs the resource URL", () => {
    expect(
      loadEnv({ MCP_AUTHORIZATION_SERVERS: "https://a.example.com, https://b.example.com", MCP_RESOURCE_URL: "https://t.example.com/mcp" })
        .MCP_AUTHORIZATION_SERVERS,
    ).toEqual(["https://a.example.com", "https://b.example.com"]);
    expect(() => loadEnv({ MCP_AUTHORIZATION_SERVERS: "https://a.example.com" })).toThrow(
      /MCP_RESOURCE_URL: is required when MCP_AUTHORIZATION_SERVERS is set/,
    );
  });

  it("reads the required scopes, comma- or space-separated, none by default", () => {
    expect(loadEnv({}).MCP_REQUIRED_SCOPES).toEqual([]);
    expect(loadEnv({ MCP_REQUIRED_SCOPES: "mcp:tools, mcp:call  extra" }).MCP_REQUIRED_SCOPES).toEqual(["mcp:tools", "mcp:call", "extra"]);
  });

  it("reads allowed origins without trailing slashes", () => {
    expect(loadEnv({ MCP_ALLOWED_ORIGINS: "http://localhost:6274/, https://app.example.com" }).MCP_ALLOWED_ORIGINS).toEqual([
      "http://localhost:6274",
      "https://app.example.com",
    ]);
  });

  it("refuses origins that are not scheme://host[:port], and a guessable or unsendable token (as the gateway does)", () => {
    expect(() => loadEnv({ MCP_ALLOWED_ORIGINS: "https://app.example.com, app.example.com" })).toThrow(
      /MCP_ALLOWED_ORIGINS.*'app.example.com' is not an origin/,
    );
    expect(() => loadEnv({ MCP_ALLOWED_ORIGINS: "https://app.example.com/login" })).toThrow(/is not an origin/);
    expect(() => loadEnv({ GATEWAY_TOKEN: "short" })).toThrow(/GATEWAY_TOKEN.*at least 16 characters/);
    expect(() => loadEnv({ GATEWAY_TOKEN: "sixteen chars with spaces" })).toThrow(/GATEWAY_TOKEN.*whitespace/);
    expect(loadEnv({ GATEWAY_TOKEN: "0123456789abcdef" }).GATEWAY_TOKEN).toBe("0123456789abcdef");
  });

  it("names every bad variable at once", () => {
    try {
      loadEnv({ MCP_PAGE_SIZE: "0", MCP_AUTHORIZATION_SERVERS: "ftp://x", MCP_CALL_TIMEOUT_MS: "soon" });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(EnvError);
      expect((err as EnvError).problems.map((p) => p.split(/[=:.]/)[0])).toEqual(
        expect.arrayContaining(["MCP_PAGE_SIZE", "MCP_AUTHORIZATION_SERVERS", "MCP_CALL_TIMEOUT_MS"]),
      );
    }
  });
});
