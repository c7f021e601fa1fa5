import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface ChatRequest {
  model: string;
  messages: Array<{
    role: string;
    content?: string | null;
    tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
    tool_call_id?: string;
  }>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
}

/**
 * One model turn: text, tool calls, or both; `delayMs` holds the answer back that long (a slow model).
 * A function sees the whole request (to react to observations); it may answer later (a promise), or
 * never — `() => new Promise(() => {})` is a model that hangs.
 */
export interface ScriptedReply {
  content?: string;
  tool_calls?: Array<{ name: string; arguments: string | object }>;
  delayMs?: number;
  /** The token counts the completion reports (default: 10 per message sent, 5 per completion); null reports none. */
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
  /** The model the completion names (default: the one asked for). */
  model?: string;
}
export type ScriptedTurn = ScriptedReply | ((request: ChatRequest) => ScriptedReply | Promise<ScriptedReply>);

/**
 * An OpenAI-compatible chat-completions server that plays a script, for tests (design §5: the product
 * never fakes an answer; tests use a scripted server). The script is chosen by the first user message (the
 * question) and the turn by how many assistant messages the conversation already has, so runs in parallel
 * never take each other's turns. Every request is recorded for assertions.
 */
export class ScriptedLlm {
  readonly requests: ChatRequest[] = [];
  /** The W3C `traceparent` header of each request that had one (a traced agent sends its LLM span's). */
  readonly traceparents: string[] = [];
  /** Requests whose client closed the connection before the answer was sent (an aborted call). */
  readonly abandoned: ChatRequest[] = [];
  private readonly scripts = new Map<string, ScriptedTurn[]>();
  private server: Server | undefined;
  private callCounter = 0;
  url = "";

  /** Plays `turns` for conversations whose question contains `question`. */
  script(question: string, turns: ScriptedTurn[]): void {
    this.scripts.set(question, turns);
  }

  /** Requests made for one question. */
  requestsFor(question: string): ChatRequest[] {
    return this.requests.filter((r) => firstUser(r)?.includes(question));
  }

  /** Requests for one question that their client gave up on (closed the connection) before the answer. */
  abandonedFor(question: string): ChatRequest[] {
    return this.abandoned.filter((r) => firstUser(r)?.includes(question));
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString()));
      request.on("end", () => {
        if (request.method !== "POST" || !request.url?.endsWith("/chat/completions")) {
          response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "not found" } }));
          return;
        }
        const chat = JSON.parse(body) as ChatRequest;
        this.requests.push(chat);
        response.on("close", () => {
          if (!response.writableEnded) this.abandoned.push(chat);
        });
        const traceparent = request.headers.traceparent;
        if (typeof traceparent === "string") this.traceparents.push(traceparent);
        void this.turnFor(chat).then(
          (reply) => {
            if (!reply) {
              response
                .writeHead(500, { "content-type": "application/json" })
                .end(JSON.stringify({ error: { message: `no script for: ${firstUser(chat)}` } }));
              return;
            }
            const answer = () =>
              response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(this.completion(chat, reply)));
            if (reply.delayMs) setTimeout(answer, reply.delayMs);
            else answer();
          },
          (err: unknown) => {
            response
              .writeHead(500, { "content-type": "application/json" })
              .end(JSON.stringify({ error: { message: `script failed: ${String(err)}` } }));
          },
        );
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  close(): Promise<void> {
    this.server?.closeAllConnections();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async turnFor(chat: ChatRequest): Promise<ScriptedReply | undefined> {
    const question = firstUser(chat) ?? "";
    const entry = [...this.scripts.entries()].find(([key]) => question.includes(key));
    if (!entry) return undefined;
    const turn = entry[1][chat.messages.filter((m) => m.role === "assistant").length];
    if (!turn) return undefined;
    return typeof turn === "function" ? turn(chat) : turn;
  }

  private completion(chat: ChatRequest, reply: ScriptedReply) {
    const toolCalls = (reply.tool_calls ?? []).map((call) => ({
      id: `call_${++this.callCounter}`,
      type: "function",
      function: { name: call.name, arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments) },
    }));
    const usage = reply.usage === undefined ? { prompt_tokens: 10 * chat.messages.length, completion_tokens: 5 } : reply.usage;
    return {
      id: `chatcmpl-${this.callCounter}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: reply.model ?? chat.model,
      choices: [
        {
          index: 0,
          finish_reason: toolCalls.length ? "tool_calls" : "stop",
          message: { role: "assistant", content: reply.content ?? null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
        },
      ],
      ...(usage ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } : {}),
    };
  }
}

function firstUser(chat: ChatRequest): string | undefined {
  const content = chat.messages.find((m) => m.role === "user")?.content;
  return typeof content === "string" ? content : undefined;
}
