import { describe, expect, it } from "vitest";
import { type ConfigView, parseItems } from "@toolmesh/base";
import { TopicLayout } from "@toolmesh/schema";
import { configTools } from "../../src/sources/config-tools.js";

/** Just what configTools reads of a ConfigView: raw values and their parsed form. */
function view(snapshot: Record<string, Record<string, unknown>>): ConfigView {
  const values = (type: string) =>
    Object.fromEntries(Object.entries(snapshot[type] ?? {}).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));
  return {
    values,
    parsed: (type: string, schema: Parameters<typeof parseItems>[1]) => parseItems(values(type), schema),
  } as unknown as ConfigView;
}

describe("configTools", () => {
  it("leaves TrustGraph-only tool types out with a reason, and keeps problems for broken tools", () => {
    const result = configTools(
      view({
        tool: {
          kq: { type: "knowledge-query", name: "ask-docs", description: "Ask" },
          prompt: { type: "prompt", name: "summarise", template: "summary" },
          broken: { type: "tool-service", name: "broken" },
          weird: { type: "nope", name: "weird" },
          chat: { type: "text-completion", name: "chat", description: "Ask the LLM" },
        },
      }),
      new TopicLayout(),
    );
    expect(result.entries.map((e) => e.tool_id)).toEqual(["config.chat"]);
    expect(result.leftOut).toEqual([
      "tool 'kq': type 'knowledge-query' is a TrustGraph tool type toolmesh does not execute (only TrustGraph's agents do)",
      "tool 'prompt': type 'prompt' is a TrustGraph tool type toolmesh does not execute (only TrustGraph's agents do)",
    ]);
    expect(result.problems).toEqual([
      expect.stringMatching(/^tool 'broken': .*service/),
      expect.stringMatching(/^tool 'weird': .*'type' must be one of/),
    ]);
  });

  it("leaves out a tool whose tool-service has a topic with '/' (stored before topics were checked), as a problem", () => {
    const result = configTools(
      view({
        "tool-service": { slashed: { id: "slashed", topic: "a/b" } },
        tool: { t: { type: "tool-service", name: "t", service: "slashed" } },
      }),
      new TopicLayout(),
    );
    // Such an entry would make a revision that mcp-server, the gateway and tg all refuse to read.
    expect(result.entries).toEqual([]);
    expect(result.problems).toEqual([expect.stringMatching(/^tool-service 'slashed': .*'a\/b' is not a topic name/), expect.any(String)]);
  });

  it("binds an mcp-tool tool to toolmesh's gateway, or to the queues it names (TrustGraph's processor)", () => {
    const result = configTools(
      view({
        mcp: { calc: { url: "http://127.0.0.1:3901/mcp" } },
        tool: {
          local: { type: "mcp-tool", name: "calc", "mcp-tool": "calc" },
          remote: {
            type: "mcp-tool",
            name: "calc-tg",
            "mcp-tool": "calc",
            "request-queue": "request:tg:mcp-tool-tg",
            "response-queue": "response:tg:mcp-tool-tg",
          },
        },
      }),
      new TopicLayout(),
    );
    expect(result.problems).toEqual([]);
    expect(result.entries.map((e) => e.binding)).toEqual([
      { kind: "mcp-tool", mcp_tool: "calc" },
      {
        kind: "mcp-tool",
        mcp_tool: "calc",
        request_topic: "non-persistent://tg/request/mcp-tool-tg",
        response_topic: "non-persistent://tg/response/mcp-tool-tg",
      },
    ]);
  });
});
