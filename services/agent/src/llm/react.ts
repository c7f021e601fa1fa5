import type { ToolSpec } from "./chat-model.js";

/** The system prompt of ReAct text mode: the tools and the exact reply format. */
export function reactSystemPrompt(tools: readonly ToolSpec[]): string {
  const list = tools.map((t) => `- ${t.name}: ${t.description}\n  arguments (JSON Schema): ${JSON.stringify(t.parameters)}`).join("\n");
  return [
    "You answer questions and may use tools. Reply in exactly one of these two forms.",
    "To use a tool:",
    "Thought: <your reasoning>",
    "Action: <tool name>",
    "Args: <JSON object of arguments>",
    "To answer:",
    "Thought: <your reasoning>",
    "Final Answer: <the answer>",
    "After an Action you receive 'Observation: <result>'.",
    tools.length ? `Tools:\n${list}` : "No tools are available.",
  ].join("\n");
}

export type ReactStep =
  | { kind: "answer"; thought: string; answer: string }
  | { kind: "action"; thought: string; tool: string; args: string }
  | { kind: "unparsable"; reason: string };

/** Parses one ReAct reply. `Args` runs to the end of the text (JSON may span lines). */
export function parseReact(text: string): ReactStep {
  const thought = /Thought:\s*([\s\S]*?)(?=\n\s*(?:Action:|Final Answer:)|$)/i.exec(text)?.[1]?.trim() ?? "";
  const answer = /Final Answer:\s*([\s\S]*)$/i.exec(text);
  if (answer) return { kind: "answer", thought, answer: answer[1]!.trim() };
  const action = /Action:\s*(.+)/i.exec(text);
  const args = /Args:\s*([\s\S]*)$/i.exec(text);
  if (action) return { kind: "action", thought, tool: action[1]!.trim(), args: args?.[1]?.trim() || "{}" };
  return { kind: "unparsable", reason: "expected 'Action:' with 'Args:', or 'Final Answer:'" };
}
