import { describe, expect, it } from "vitest";
import { serviceError } from "../../src/gateway.js";

describe("serviceError", () => {
  it("finds the error of a single reply", () => {
    expect(serviceError({ error: null, text: "4" })).toBeUndefined();
    expect(serviceError({ error: { type: "mcp-tool-error", message: "no such tool" } })).toBe("mcp-tool-error: no such tool");
  });

  it("finds an error in any element of a streamed reply", () => {
    expect(
      serviceError([
        { error: null, response: "a", end_of_stream: false },
        { error: { type: "tool-service-error", message: "boom" }, response: "", end_of_stream: true },
      ]),
    ).toBe("tool-service-error: boom");
    expect(serviceError([{ error: null }, { error: null }])).toBeUndefined();
  });

  it("copes with errors that are not the wire shape", () => {
    expect(serviceError({ error: "plain text" })).toBe("plain text");
    expect(serviceError({ error: { message: "no type" } })).toBe("no type");
    expect(serviceError({ error: 42 })).toBe("42");
  });
});
