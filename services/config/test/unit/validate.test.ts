import { describe, expect, it } from "vitest";
import { descriptorProblem } from "../../src/validate.js";

describe("descriptorProblem", () => {
  it("accepts valid descriptors of every known type, and anything of other types", () => {
    const ok = [
      { type: "tool-service", key: "joke-service", value: '{"id":"joke-service","topic":"joke"}' },
      { type: "tool", key: "tell-joke", value: '{"type":"tool-service","name":"tell-joke","service":"joke-service"}' },
      { type: "mcp", key: "calc", value: '{"url":"http://127.0.0.1:3901/mcp"}' },
      { type: "tool-source", key: "jokes", value: '{"id":"jokes","manifest_url":"http://127.0.0.1:8702/tools/manifest"}' },
      { type: "prompt", key: "anything", value: "not even json" },
    ];
    for (const item of ok) expect(descriptorProblem(item), item.type).toBeNull();
  });

  it("explains each refusal", () => {
    expect(descriptorProblem({ type: "tool", key: "t", value: "{oops" })).toMatch(/^tool 't': value is not valid JSON/);
    expect(descriptorProblem({ type: "tool", key: "t", value: '{"type":"tool-service","name":"t"}' })).toMatch(
      /^tool 't' is not a valid descriptor: service: /,
    );
    expect(descriptorProblem({ type: "tool-service", key: "a", value: '{"id":"b","topic":"x"}' })).toBe(
      "tool-service 'a': its id 'b' must equal the key",
    );
    expect(descriptorProblem({ type: "mcp", key: "m", value: '{"url":"ftp://x"}' })).toMatch(/url must be an http\(s\) URL/);
    // `tg set-tool-service --topic a/b` was stored, then its tools broke every reader of the catalog.
    expect(descriptorProblem({ type: "tool-service", key: "s", value: '{"id":"s","topic":"a/b"}' })).toMatch(
      /^tool-service 's' is not a valid descriptor: topic: 'a\/b' is not a topic name/,
    );
  });
});
