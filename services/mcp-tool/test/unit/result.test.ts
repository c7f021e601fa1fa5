import { describe, expect, it } from "vitest";
import { toWireReply } from "../../src/result.js";

describe("toWireReply", () => {
  it("puts text content in text", () => {
    expect(toWireReply({ content: [{ type: "text", text: "4" }] })).toEqual({ error: null, text: "4", object: null });
  });

  it("joins several text parts with newlines and drops non-text parts beside them", () => {
    const result = {
      content: [
        { type: "text", text: "Here's the image:" },
        { type: "image", data: "iVBOR", mimeType: "image/png" },
        { type: "text", text: "That was it." },
      ],
    };
    expect(toWireReply(result)).toEqual({ error: null, text: "Here's the image:\nThat was it.", object: null });
  });

  it("prefers structuredContent, as JSON in object", () => {
    const result = { content: [{ type: "text", text: '{"sum":4}' }], structuredContent: { sum: 4 } };
    expect(toWireReply(result)).toEqual({ error: null, text: null, object: '{"sum":4}' });
  });

  it("keeps content without any text as the content array in object", () => {
    const content = [{ type: "image", data: "iVBOR", mimeType: "image/png" }];
    expect(toWireReply({ content })).toEqual({ error: null, text: null, object: JSON.stringify(content) });
  });

  it("turns isError into an mcp-tool-error carrying the text", () => {
    expect(toWireReply({ isError: true, content: [{ type: "text", text: "division by zero" }, { type: "text", text: "at 1/0" }] })).toEqual({
      error: { type: "mcp-tool-error", message: "division by zero\nat 1/0" },
      text: null,
      object: null,
    });
    expect(toWireReply({ isError: true, content: [] }).error).toEqual({
      type: "mcp-tool-error",
      message: "the tool reported an error without a text message",
    });
    expect(toWireReply({ isError: true, structuredContent: { code: 7 }, content: [{ type: "text", text: "bad" }] }).error?.message).toBe("bad");
  });

  it("answers an empty result with empty text, and reads the old {toolResult} form", () => {
    expect(toWireReply({ content: [] })).toEqual({ error: null, text: "", object: null });
    expect(toWireReply({ toolResult: { answer: 42 } })).toEqual({ error: null, text: null, object: '{"answer":42}' });
    expect(toWireReply({ toolResult: "plain" })).toEqual({ error: null, text: "plain", object: null });
  });
});
