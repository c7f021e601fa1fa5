import OpenAI from "openai";
import { SpanKind, type TraceContext, injectTraceContext, traced } from "@toolmesh/base";

export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ToolCall {
  id: string;
  name: string;
  /** The model's raw argument text: it may not even be JSON, which the loop reports back to it. */
  arguments: string;
}

export type ChatMessage =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

export interface Completion {
  content: string | null;
  toolCalls: ToolCall[];
  /** Tokens the model server counted for this completion; null when it reported none. */
  usage: { inTokens: number; outTokens: number } | null;
  /** The model that answered, as the server names it (else the one asked for). */
  model: string;
}

export interface CompletionOptions {
  /** Tools the model may call. */
  tools?: ToolSpec[] | undefined;
  /** The span the call continues. */
  trace?: TraceContext | undefined;
  /**
   * Aborts the call: the HTTP request is closed, so a model server that stops generating for a client
   * gone (vLLM, llama.cpp, Ollama, OpenAI) stops spending on an answer nobody will read.
   */
  signal?: AbortSignal | undefined;
}

/** What the agent needs from an LLM: one chat completion. */
export interface ChatModel {
  complete(messages: ChatMessage[], options?: CompletionOptions): Promise<Completion>;
}

export interface OpenAiChatModelOptions {
  baseURL: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
}

/** The OpenAI-compatible chat-completions API through the official SDK. */
export class OpenAiChatModel implements ChatModel {
  private readonly client: OpenAI;

  constructor(private readonly options: OpenAiChatModelOptions) {
    this.client = new OpenAI({ baseURL: options.baseURL, apiKey: options.apiKey, timeout: options.timeoutMs, maxRetries: 1 });
  }

  /** One chat completion in an `llm chat` span: the model and counts, never the messages. */
  complete(messages: ChatMessage[], { tools, trace, signal }: CompletionOptions = {}): Promise<Completion> {
    const attributes = {
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": this.options.model,
      "toolmesh.llm.tools_offered": tools?.length ?? 0,
    };
    return traced("llm chat", { kind: SpanKind.CLIENT, attributes, parent: trace }, async (scope) => {
      const completion = await this.ask(messages, tools, scope.context, signal);
      scope.set({
        "toolmesh.llm.tool_calls": completion.toolCalls.length,
        "gen_ai.response.model": completion.model,
        ...(completion.usage
          ? { "gen_ai.usage.input_tokens": completion.usage.inTokens, "gen_ai.usage.output_tokens": completion.usage.outTokens }
          : {}),
      });
      return completion;
    });
  }

  private async ask(
    messages: ChatMessage[],
    tools: ToolSpec[] | undefined,
    trace: TraceContext,
    signal: AbortSignal | undefined,
  ): Promise<Completion> {
    const response = await this.client.chat.completions.create(
      {
        model: this.options.model,
        messages: messages.map(toOpenAi),
        ...(tools && tools.length > 0
          ? {
              tools: tools.map((t) => ({
                type: "function" as const,
                function: { name: t.name, description: t.description, parameters: t.parameters },
              })),
            }
          : {}),
      },
      // The model server continues the trace if it traces too.
      { headers: injectTraceContext({}, trace), ...(signal ? { signal } : {}) },
    );
    const message = response.choices[0]?.message;
    if (!message) throw new Error("the LLM answered with no choices");
    const toolCalls = (message.tool_calls ?? []).flatMap((call) =>
      call.type === "function" ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }] : [],
    );
    const usage = response.usage ? { inTokens: response.usage.prompt_tokens, outTokens: response.usage.completion_tokens } : null;
    return { content: message.content ?? null, toolCalls, usage, model: response.model || this.options.model };
  }
}

function toOpenAi(message: ChatMessage): OpenAI.Chat.Completions.ChatCompletionMessageParam {
  if (message.role === "assistant") {
    return {
      role: "assistant",
      content: message.content,
      ...(message.tool_calls?.length
        ? {
            tool_calls: message.tool_calls.map((c) => ({
              id: c.id,
              type: "function" as const,
              function: { name: c.name, arguments: c.arguments },
            })),
          }
        : {}),
    };
  }
  return message;
}
