import { describe, expect, it } from "vitest";
import { ToolServiceRequest, ToolServiceResponse } from "../../src/index.js";

describe("tool-service wire (seed 000)", () => {
  it("decodes the seed request, with config and arguments as JSON-encoded strings", () => {
    const wire = { user: "alice", config: '{"style": "pun"}', arguments: '{"topic": "cats"}' };
    const request = ToolServiceRequest.parse(wire);
    expect(request).toEqual({ user: "alice", config: { style: "pun" }, arguments: { topic: "cats" } });
    expect(JSON.parse(JSON.stringify(ToolServiceRequest.encode(request)))).toEqual({
      user: "alice",
      config: '{"style":"pun"}',
      arguments: '{"topic":"cats"}',
    });
  });

  it("accepts TrustGraph's form without user, and empty strings as {}", () => {
    expect(ToolServiceRequest.parse({ config: "", arguments: '{"a": 1}' })).toEqual({
      user: "",
      config: {},
      arguments: { a: 1 },
    });
    expect(ToolServiceRequest.parse({})).toEqual({ user: "", config: {}, arguments: {} });
    // null, as TrustGraph's api-gateway sends a value its caller did not give.
    expect(ToolServiceRequest.parse({ config: null, arguments: null })).toEqual({ user: "", config: {}, arguments: {} });
  });

  it("ignores unknown keys", () => {
    expect(ToolServiceRequest.parse({ user: "u", extra: true })).not.toHaveProperty("extra");
  });

  it("rejects arguments that are not JSON, or JSON that is not an object", () => {
    const bad = ToolServiceRequest.safeParse({ arguments: "{topic: cats}" });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(["arguments"]);
    expect(bad.error?.issues[0]?.message).toMatch(/not valid JSON/);
    expect(ToolServiceRequest.safeParse({ arguments: "[1, 2]" }).success).toBe(false);
    expect(ToolServiceRequest.safeParse({ arguments: 42 }).success).toBe(false);
  });

  it("round-trips the seed responses", () => {
    const ok = { error: null, response: "Here's a pun ...", end_of_stream: true };
    expect(ToolServiceResponse.parse(ok)).toEqual(ok);
    const err = {
      error: { type: "tool-service-error", message: "..." },
      response: "",
      end_of_stream: true,
    };
    expect(ToolServiceResponse.parse(err)).toEqual(err);
  });

  it("treats a reply without end_of_stream as the last one (non-streaming peers)", () => {
    expect(ToolServiceResponse.parse({ response: "x" })).toEqual({
      error: null,
      response: "x",
      end_of_stream: true,
    });
  });
});
