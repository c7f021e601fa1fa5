import { AgentResponse } from "@toolmesh/schema";
import { describe, expect, it } from "vitest";
import { agentTranscript, formatTable, joinResponses, mcpRows, mcpToolOutput, prettyJsonText, toolRows } from "../../src/format.js";

const agent = (fields: Record<string, unknown>) => AgentResponse.parse(fields);

describe("formatTable", () => {
  it("pads columns two spaces apart without trailing spaces", () => {
    expect(
      formatTable(
        ["id", "name"],
        [
          ["tell-joke", "x"],
          ["a", ""],
        ],
      ),
    ).toBe("id         name\ntell-joke  x\na");
  });

  it("keeps every row on one line", () => {
    expect(formatTable(["d"], [["two\n  lines"]])).toBe("d\ntwo lines");
  });
});

describe("prettyJsonText", () => {
  it("pretty-prints JSON and leaves other text alone", () => {
    expect(prettyJsonText('{"a":1}')).toBe('{\n  "a": 1\n}');
    expect(prettyJsonText("not json")).toBe("not json");
  });
});

describe("toolRows", () => {
  it("shows service or mcp-tool and the arguments as name:type", () => {
    const rows = toolRows([
      {
        key: "tell-joke",
        value: JSON.stringify({
          type: "tool-service",
          name: "tell-joke",
          description: "Tells a joke",
          service: "joke-service",
          arguments: [{ name: "topic", type: "string" }, { name: "n" }],
        }),
      },
      { key: "calc", value: JSON.stringify({ type: "mcp-tool", name: "calc", "mcp-tool": "calculator" }) },
      { key: "bad", value: "[1]" },
    ]);
    expect(rows).toEqual([
      ["tell-joke", "tell-joke", "tool-service", "joke-service", "Tells a joke", "topic:string, n:string"],
      ["calc", "calc", "mcp-tool", "calculator", "", ""],
      ["bad", "", "", "", "(not a JSON object)", ""],
    ]);
  });
});

describe("mcpRows", () => {
  it("never prints the token, only that it is set, and only header names", () => {
    const rows = mcpRows([
      {
        key: "calc",
        value: JSON.stringify({ url: "http://h/mcp", "remote-name": "add", "auth-token": "s3cret", headers: { "X-K": "v" } }),
      },
    ]);
    expect(rows).toEqual([["calc", "http://h/mcp", "add", "auto", "(set)", "", "X-K"]]);
    expect(JSON.stringify(rows)).not.toContain("s3cret");
  });

  it("shows an oauth2 entry's client id and scope, never its secret", () => {
    const oauth2 = { "client-id": "svc", "client-secret": "s3cret", scope: "mcp:tools" };
    const rows = mcpRows([{ key: "search", value: JSON.stringify({ url: "https://m/mcp", oauth2 }) }]);
    expect(rows).toEqual([["search", "https://m/mcp", "", "auto", "", "client svc (mcp:tools)", ""]]);
    expect(JSON.stringify(rows)).not.toContain("s3cret");
  });
});

describe("tool and MCP replies", () => {
  it("joins streamed tool-service chunks in order", () => {
    expect(
      joinResponses([
        { error: null, response: "Why ", end_of_stream: false },
        { error: null, response: "cats?", end_of_stream: true },
      ]),
    ).toBe("Why cats?");
  });

  it("prints an MCP tool's text, else its object pretty, else nothing", () => {
    expect(mcpToolOutput({ text: "4" })).toBe("4");
    expect(mcpToolOutput({ object: { sum: 4 } })).toBe('{\n  "sum": 4\n}');
    expect(mcpToolOutput({})).toBeUndefined();
  });
});

describe("agentTranscript", () => {
  it("prints thoughts and observations labelled and the answer on its own", () => {
    expect(
      agentTranscript([
        agent({ message_type: "thought", content: "I should call tell-joke" }),
        agent({ message_type: "observation", content: "Why did the cat..." }),
        agent({ message_type: "answer", content: "Here is a joke", end_of_dialog: true }),
      ]),
    ).toEqual({ lines: ["thought: I should call tell-joke", "observation: Why did the cat...", "Here is a joke"] });
  });

  it("joins a message streamed in chunks", () => {
    expect(
      agentTranscript([
        agent({ message_type: "thought", content: "I ", end_of_message: false }),
        agent({ message_type: "thought", content: "think", end_of_message: true }),
        agent({ message_type: "answer", content: "4", end_of_message: false }),
        agent({ message_type: "answer", content: "2", end_of_message: false, end_of_dialog: true }),
      ]).lines,
    ).toEqual(["thought: I think", "42"]);
  });

  it("stops at the first error, keeping what came before", () => {
    expect(
      agentTranscript([
        agent({ message_type: "thought", content: "hmm" }),
        agent({ message_type: "error", content: "", error: { type: "agent-error", message: "LLM unreachable" } }),
        agent({ message_type: "answer", content: "never shown" }),
      ]),
    ).toEqual({ lines: ["thought: hmm"], error: "agent-error: LLM unreachable" });
    expect(agentTranscript([agent({ message_type: "error", content: "model refused" })]).error).toBe("model refused");
  });
});
