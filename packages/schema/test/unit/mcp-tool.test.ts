import { describe, expect, it } from "vitest";
import { McpToolRequest, McpToolResponse } from "../../src/index.js";

describe("mcp-tool wire (seed 003)", () => {
  it("decodes the seed request", () => {
    const request = McpToolRequest.parse({ name: "calculator", parameters: '{"expression": "2 + 2"}' });
    expect(request).toEqual({ name: "calculator", parameters: { expression: "2 + 2" }, operation: "call" });
    expect(McpToolRequest.encode(request)).toEqual({
      name: "calculator",
      parameters: '{"expression":"2 + 2"}',
      operation: "call",
    });
    expect(McpToolRequest.parse({ name: "calc", operation: "list-tools" }).operation).toBe("list-tools");
    expect(McpToolRequest.safeParse({ name: "calc", operation: "drop" }).success).toBe(false);
  });

  it("requires a name and JSON parameters", () => {
    expect(McpToolRequest.safeParse({ parameters: "{}" }).success).toBe(false);
    expect(McpToolRequest.safeParse({ name: "x", parameters: "not json" }).success).toBe(false);
  });

  it("reads TrustGraph's gateway's null parameters (its caller gave none) as {}", () => {
    expect(McpToolRequest.parse({ name: "get-env", parameters: null }).parameters).toEqual({});
  });

  it("round-trips text and object responses", () => {
    const text = { error: null, text: "4", object: null };
    expect(McpToolResponse.parse(text)).toEqual(text);
    const object = { error: null, text: null, object: '{"sum": 4}' };
    expect(McpToolResponse.parse(object)).toEqual(object);
  });
});
