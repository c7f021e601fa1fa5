import { describe, expect, it } from "vitest";
import { PulsarClient } from "@toolmesh/pulsar";
import { type CatalogTool, TopicLayout } from "@toolmesh/schema";
import { parseReact, reactSystemPrompt } from "../../src/llm/react.js";
import { ToolCallProblem, ToolInvoker } from "../../src/tool-invoker.js";

describe("ReAct text mode", () => {
  it("parses an action with multi-line JSON arguments", () => {
    expect(parseReact('Thought: I need a joke\nAction: tell-pun\nArgs: {\n  "topic": "cats"\n}')).toEqual({
      kind: "action",
      thought: "I need a joke",
      tool: "tell-pun",
      args: '{\n  "topic": "cats"\n}',
    });
  });

  it("parses a final answer and reports text in neither form", () => {
    expect(parseReact("Thought: done\nFinal Answer: cats purr")).toEqual({ kind: "answer", thought: "done", answer: "cats purr" });
    expect(parseReact("I think the answer is 4")).toMatchObject({ kind: "unparsable" });
  });

  it("lists every tool with its schema in the system prompt", () => {
    const prompt = reactSystemPrompt([{ name: "tell-pun", description: "Tells a pun", parameters: { type: "object" } }]);
    expect(prompt).toContain('- tell-pun: Tells a pun\n  arguments (JSON Schema): {"type":"object"}');
    expect(prompt).toContain("Final Answer:");
  });
});

describe("argument validation before a call", () => {
  // No call is made in these tests: the client is never connected.
  const invoker = new ToolInvoker({
    pulsar: new PulsarClient({ webServiceUrl: "http://127.0.0.1:1" }),
    topics: new TopicLayout(),
    timeoutMs: 1000,
  });
  const tool: CatalogTool = {
    tool_id: "t",
    name: "tell-pun",
    description: "",
    parameters_schema: {
      type: "object",
      properties: { topic: { type: "string", minLength: 1 } },
      required: ["topic"],
      additionalProperties: false,
    },
    binding: { kind: "text-completion" },
    source: "config",
    content_hash: "h",
  };

  it("accepts arguments that match the schema", () => {
    expect(invoker.checkArguments(tool, '{"topic": "cats"}')).toEqual({ topic: "cats" });
  });

  it("explains each violation so the model can correct it", () => {
    expect(() => invoker.checkArguments(tool, '{"subject": 3}')).toThrow(ToolCallProblem);
    expect(() => invoker.checkArguments(tool, '{"subject": 3}')).toThrow(
      /invalid arguments for tell-pun: .*must have required property 'topic'.*must NOT have additional properties/,
    );
    expect(() => invoker.checkArguments(tool, "{topic: cats}")).toThrow(/not valid JSON/);
    expect(() => invoker.checkArguments(tool, "[1]")).toThrow(/must be a JSON object/);
  });
});
