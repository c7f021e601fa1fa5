import { describe, expect, it } from "vitest";
import { parseCliEnv } from "../../src/env.js";

describe("parseCliEnv", () => {
  it("defaults to the local gateway with no token", () => {
    expect(parseCliEnv({})).toEqual({ TG_URL: "http://127.0.0.1:8088", TG_TIMEOUT_MS: 120_000, TG_MCP_URL: "http://127.0.0.1:8706/mcp" });
  });

  it("treats empty values as unset and coerces the timeout", () => {
    expect(parseCliEnv({ TG_URL: "", TG_TOKEN: "", TG_TIMEOUT_MS: "500", TG_MCP_URL: "" })).toEqual({
      TG_URL: "http://127.0.0.1:8088",
      TG_TIMEOUT_MS: 500,
      TG_MCP_URL: "http://127.0.0.1:8706/mcp",
    });
  });

  it("names each bad variable on one line", () => {
    expect(() => parseCliEnv({ TG_URL: "gateway:8088", TG_TIMEOUT_MS: "soon" })).toThrow(
      /^invalid environment: TG_URL="gateway:8088": must be an http\(s\) URL; TG_TIMEOUT_MS="soon": /,
    );
    expect(() => parseCliEnv({ TG_MCP_URL: "mcp-server:8706" })).toThrow(/TG_MCP_URL="mcp-server:8706": must be an http\(s\) URL/);
  });
});
