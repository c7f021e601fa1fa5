import { describe, expect, it } from "vitest";
import { EnvError } from "@toolmesh/base";
import { loadEnv } from "../../src/env.js";

describe("mcp-tool env", () => {
  it("has defaults for everything", () => {
    expect(loadEnv({})).toMatchObject({
      HTTP_PORT: 8703,
      MCP_TOOL_TOPIC: "mcp-tool",
      MCP_CALL_TIMEOUT_MS: 25_000,
      MCP_CONNECT_TIMEOUT_MS: 10_000,
      MCP_CONCURRENCY: 32,
    });
  });

  it("coerces numbers and treats empty values as unset", () => {
    const env = loadEnv({ MCP_CALL_TIMEOUT_MS: "5000", MCP_CONNECT_TIMEOUT_MS: "", MCP_TOOL_TOPIC: "mcp-tool-test" });
    expect(env).toMatchObject({ MCP_CALL_TIMEOUT_MS: 5000, MCP_CONNECT_TIMEOUT_MS: 10_000, MCP_TOOL_TOPIC: "mcp-tool-test" });
  });

  it("names each bad variable and its value", () => {
    let error: unknown;
    try {
      loadEnv({ MCP_CALL_TIMEOUT_MS: "soon", MCP_CONNECT_TIMEOUT_MS: "-1", MCP_TOOL_TOPIC: "a/b", MCP_CONCURRENCY: "0" });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(EnvError);
    const message = (error as Error).message;
    expect(message).toMatch(/MCP_CALL_TIMEOUT_MS="soon": /);
    expect(message).toMatch(/MCP_CONNECT_TIMEOUT_MS="-1": /);
    expect(message).toMatch(/MCP_TOOL_TOPIC="a\/b": a topic name/);
    expect(message).toMatch(/MCP_CONCURRENCY="0": /);
  });
});
