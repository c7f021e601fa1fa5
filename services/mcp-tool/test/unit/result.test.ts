import { describe, expect, it } from "vitest";
import { toWireReply } from "../../src/result.js";

describe("toWireReply", () => {
  it("puts text content in text", () => {
    expect(toWireReply({ content: [{ type: "text", text: "4" }] })).toEqual({ error: null, text: "4", object: null });
  });

  it("joins several text parts with newlines", () => {
    const result = {
      content: [
        { type: "text", text: "one" },
        { type: "text", text: "two" },
      ],
    };
    expect(toWireReply(result)).toEqual({ error: null, text: "one\ntwo", object: null });
  });

  it("keeps an image beside text: the whole content array goes in object", () => {
    const content = [
      { type: "text", text: "Here's the image:" },
      { type: "image", data: "iVBOR", mimeType: "image/png" },
      { type: "text", text: "That was it." },
    ];
    expect(toWireReply({ content })).toEqual({ error: null, text: null, object: JSON.stringify(content) });
  });

  it("answers a Python `-> str` tool (structuredContent {result: <its text>}) as text", () => {
    const result = { content: [{ type: "text", text: "py-echo: hi" }], structuredContent: { result: "py-echo: hi" } };
    expect(toWireReply(result)).toEqual({ error: null, text: "py-echo: hi", object: null });
  });

  it("keeps a `result` field that is the tool's own structure as an object", () => {
    const differs = { content: [{ type: "text", text: "The result is 4" }], structuredContent: { result: "4" } };
    expect(toWireReply(differs)).toEqual({ error: null, text: null, object: '{"result":"4"}' });
    const number = { content: [{ type: "text", text: "4" }], structuredContent: { result: 4 } };
    expect(toWireReply(number)).toEqual({ error: null, text: null, object: '{"result":4}' });
    const more = { content: [{ type: "text", text: "x" }], structuredContent: { result: "x", unit: "m" } };
    expect(toWireReply(more).object).toBe('{"result":"x","unit":"m"}');
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
    expect(
      toWireReply({
        isError: true,
        content: [
          { type: "text", text: "division by zero" },
          { type: "text", text: "at 1/0" },
        ],
      }),
    ).toEqual({
      error: { type: "mcp-tool-error", message: "division by zero\nat 1/0" },
      text: null,
      object: null,
    });
    expect(toWireReply({ isError: true, content: [] }).error).toEqual({
      type: "mcp-tool-error",
      message: "the tool reported an error without a text message",
    });
    expect(toWireReply({ isError: true, structuredContent: { code: 7 }, content: [{ type: "text", text: "bad" }] }).error?.message).toBe(
      "bad",
    );
  });

  it("answers an empty result with empty text, and reads the old {toolResult} form", () => {
    expect(toWireReply({ content: [] })).toEqual({ error: null, text: "", object: null });
    expect(toWireReply({ toolResult: { answer: 42 } })).toEqual({ error: null, text: null, object: '{"answer":42}' });
    expect(toWireReply({ toolResult: "plain" })).toEqual({ error: null, text: "plain", object: null });
  });
});
