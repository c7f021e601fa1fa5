import type { Logger } from "pino";
import { TraceAttr, type TraceContext, type TraceScope, traced, tracedStream } from "@toolmesh/base";
import { NotRunningError } from "@toolmesh/pulsar";
import { type CatalogRevision, type CatalogTool, ErrorType, ServiceError } from "@toolmesh/schema";
import type { ChatMessage, ChatModel, ToolSpec } from "./llm/chat-model.js";
import { parseReact, reactSystemPrompt } from "./llm/react.js";
import { type RunUsage, UsageTally } from "./llm/usage-tally.js";
import type { RunEnds } from "./run-ends.js";
import type { RunStore } from "./run-store/index.js";
import { RunSteps } from "./run-steps.js";
import { ToolCallProblem, type ToolInvoker } from "./tool-invoker.js";

/** One step of a run; the last (answer or error) also says what the run's LLM calls used. */
export type AgentEvent =
  | { kind: "thought" | "observation"; content: string }
  | { kind: "answer"; content: string; usage?: RunUsage }
  /** `errorType`: the wire error's type when not agent-error (`unavailable`: cut short, ask again). */
  | { kind: "error"; content: string; usage?: RunUsage; errorType?: string };

export interface RunInput {
  runId: string;
  user: string;
  question: string;
  /** Exactly the tools this run may offer and call. */
  revision: CatalogRevision;
  /** The span the run continues (the agent request's); the run's own span once it has started. */
  trace?: TraceContext | undefined;
}

/** A run under way: its input, the tally of its LLM use, and where its steps are recorded. */
type Running = RunInput & { usage: UsageTally; steps: RunSteps };

export interface AgentLoopOptions {
  model: ChatModel;
  invoker: ToolInvoker;
  store: RunStore;
  /** Where a failed run's end is kept when the database cannot take it (written again later). */
  ends: RunEnds;
  mode: "native" | "react";
  maxIterations: number;
  logger: Logger;
  /**
   * Aborted when this instance must end the runs in hand (it is stopping and its SHUTDOWN_TIMEOUT_MS is
   * near): each ends at once as failed, answered `unavailable`, instead of being cut off with no answer.
   */
  windDown?: AbortSignal;
}

/** A run ended by `windDown`: the caller may ask again (another instance, or this one restarted). */
class RunCutShort extends Error {}
const CUT_SHORT = "the agent instance is stopping and cut this run short before its shutdown timeout (SHUTDOWN_TIMEOUT_MS); ask again";

/**
 * A promise that rejects with RunCutShort when `signal` aborts (never without one), and `done()` to stop
 * listening once the run has ended (the signal lives as long as the process; runs must not pile up on it).
 */
function cutShort(signal: AbortSignal | undefined): { stopping: Promise<never>; done: () => void } {
  let done = () => {};
  const stopping = new Promise<never>((_resolve, reject) => {
    if (!signal) return;
    if (signal.aborted) return reject(new RunCutShort(CUT_SHORT));
    const abort = () => reject(new RunCutShort(CUT_SHORT));
    signal.addEventListener("abort", abort, { once: true });
    done = () => signal.removeEventListener("abort", abort);
  });
  stopping.catch(() => undefined);
  return { stopping, done };
}

const NATIVE_SYSTEM_PROMPT = "You answer the user's question. Use the tools offered when they help; answer in plain text when done.";

/**
 * One agent run: ask the model, run the tools it calls (several at once when it asks for several), feed the
 * observations back, until it answers or the iteration limit is reached. Tool problems — bad arguments,
 * errors, timeouts — become observations the model can read and act on; they never end the run.
 */
export class AgentLoop {
  constructor(private readonly options: AgentLoopOptions) {}

  /** The run, in an `agent run` span (its LLM calls and tool calls are its children). */
  run(input: RunInput): AsyncGenerator<AgentEvent> {
    const attributes = {
      [TraceAttr.runId]: input.runId,
      [TraceAttr.revision]: input.revision.revision_number,
      "toolmesh.agent.mode": this.options.mode,
    };
    return tracedStream("agent run", { attributes, parent: input.trace }, (scope) =>
      this.runSteps(
        { ...input, trace: scope.context, usage: new UsageTally(), steps: new RunSteps(this.options.store, input.runId) },
        scope,
      ),
    );
  }

  private async *runSteps(input: Running, scope: TraceScope): AsyncGenerator<AgentEvent> {
    const tools = new Map(input.revision.tools.map((t) => [t.name, t]));
    const specs: ToolSpec[] = input.revision.tools.map((t) => ({
      name: t.name,
      description: t.description,
      parameters: t.parameters_schema,
    }));
    const { store, maxIterations } = this.options;
    const { stopping, done } = cutShort(this.options.windDown);
    try {
      const steps = this.options.mode === "native" ? this.native(input, tools, specs) : this.react(input, tools, specs);
      for (let iteration = 1; iteration <= maxIterations; iteration++) {
        // The step in flight (an LLM or tool call) is left behind when the instance winds down.
        const next = await Promise.race([steps.next(), stopping]);
        if (next.done) return;
        for (const event of next.value) {
          if (event.kind === "answer") {
            // Recorded before it is handed on (and sent): an answer the caller got is never lost with a
            // process killed right after sending it, which another replica would mark failed.
            input.steps.end();
            await store.finish(input.runId, { answer: event.content });
            yield { ...event, usage: input.usage.total };
            return;
          }
          yield event;
        }
      }
      throw new Error(`stopped after ${maxIterations} iterations without a final answer (AGENT_MAX_ITERATIONS)`);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      // Cut short by the wind-down, or its database went away: either way the caller may ask again.
      const retry = err instanceof RunCutShort || (err instanceof ServiceError && err.type === ErrorType.unavailable);
      scope.setOutcome(err instanceof RunCutShort ? "cut-short" : "error", retry ? "unavailable" : "agent-error");
      // The run's record may be what failed: the error step is best effort, the end is kept until written.
      await input.steps.record({ kind: "error", content: message, tool: null, arguments: null, duration_ms: null }).catch(() => undefined);
      input.steps.end();
      await this.options.ends.recordOrKeep(input.runId, { error: message });
      yield { kind: "error", content: message, usage: input.usage.total, ...(retry ? { errorType: ErrorType.unavailable } : {}) };
    } finally {
      done();
    }
  }

  /** Native tool calling: each yielded batch is one model turn and what came of it. */
  private async *native(input: Running, tools: Map<string, CatalogTool>, specs: ToolSpec[]): AsyncGenerator<AgentEvent[]> {
    const messages: ChatMessage[] = [
      { role: "system", content: NATIVE_SYSTEM_PROMPT },
      { role: "user", content: input.question },
    ];
    for (;;) {
      const completion = await this.ask(input, messages, specs);
      if (completion.toolCalls.length === 0) {
        yield [await this.answer(input, completion.content ?? "")];
        return;
      }
      const events: AgentEvent[] = [];
      const thought = completion.content?.trim() || `calling ${completion.toolCalls.map((c) => `${c.name} ${c.arguments}`).join(", ")}`;
      events.push(await this.thought(input, thought));
      messages.push({ role: "assistant", content: completion.content, tool_calls: completion.toolCalls });
      const observations = await Promise.all(completion.toolCalls.map((call) => this.callTool(input, tools, call.name, call.arguments)));
      completion.toolCalls.forEach((call, i) => {
        messages.push({ role: "tool", tool_call_id: call.id, content: observations[i]! });
        events.push({ kind: "observation", content: observations[i]! });
      });
      yield events;
    }
  }

  /** ReAct text mode for models without tool calling. */
  private async *react(input: Running, tools: Map<string, CatalogTool>, specs: ToolSpec[]): AsyncGenerator<AgentEvent[]> {
    const messages: ChatMessage[] = [
      { role: "system", content: reactSystemPrompt(specs) },
      { role: "user", content: input.question },
    ];
    for (;;) {
      const text = (await this.ask(input, messages)).content ?? "";
      messages.push({ role: "assistant", content: text });
      const step = parseReact(text);
      if (step.kind === "answer") {
        const thought = step.thought ? [await this.thought(input, step.thought)] : [];
        yield [...thought, await this.answer(input, step.answer)];
        return;
      }
      const events: AgentEvent[] = [];
      let observation: string;
      if (step.kind === "unparsable") {
        observation = `your reply could not be read: ${step.reason}`;
        await input.steps.note("observation", observation);
      } else {
        events.push(await this.thought(input, step.thought || `calling ${step.tool} ${step.args}`));
        observation = await this.callTool(input, tools, step.tool, step.args);
      }
      messages.push({ role: "user", content: `Observation: ${observation}` });
      events.push({ kind: "observation", content: observation });
      yield events;
    }
  }

  private async ask(input: Running, messages: ChatMessage[], specs?: ToolSpec[]) {
    let completion;
    try {
      // The wind-down also closes the request: the model server can stop generating for a run cut short.
      completion = await this.options.model.complete(messages, { tools: specs, trace: input.trace, signal: this.options.windDown });
    } catch (err) {
      throw new Error(`LLM call failed: ${(err as Error).message}`);
    }
    input.usage.add(completion);
    return completion;
  }

  /** Runs one tool call and returns the observation text; records the call and its outcome (and traces it). */
  private callTool(input: Running, tools: Map<string, CatalogTool>, name: string, argText: string): Promise<string> {
    const attributes = { [TraceAttr.tool]: name, [TraceAttr.revision]: input.revision.revision_number };
    return traced(`tool-call ${name}`, { attributes, parent: input.trace }, (scope) => this.runTool(input, tools, name, argText, scope));
  }

  private async runTool(
    input: Running,
    tools: Map<string, CatalogTool>,
    name: string,
    argText: string,
    scope: TraceScope,
  ): Promise<string> {
    const { invoker, logger } = this.options;
    const tool = tools.get(name);
    let args: Record<string, unknown> | null = null;
    const started = performance.now();
    let observation: string;
    try {
      if (!tool) throw new ToolCallProblem(`unknown tool '${name}'; available tools: ${[...tools.keys()].join(", ") || "none"}`);
      args = invoker.checkArguments(tool, argText);
      await input.steps.record({
        kind: "tool-call",
        content: `${name} ${JSON.stringify(args)}`,
        tool: name,
        arguments: args,
        duration_ms: null,
      });
      observation = await invoker.invoke(tool, args, input.user, scope.context, this.options.windDown);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      observation =
        err instanceof NotRunningError
          ? `tool ${name} is unavailable: its service is not running (nothing consumes ${err.requestTopic})`
          : err instanceof ToolCallProblem && !args
            ? message
            : `tool ${name} failed: ${message}`;
      scope.setOutcome(args ? "error" : "bad-arguments", err instanceof Error ? ((err as { type?: string }).type ?? err.name) : "error");
      logger.info({ runId: input.runId, tool: name, observation }, "tool call did not succeed");
    }
    await input.steps.record({
      kind: "observation",
      content: observation,
      tool: name,
      arguments: args,
      duration_ms: performance.now() - started,
    });
    return observation;
  }

  private async thought(input: Running, content: string): Promise<AgentEvent> {
    await input.steps.note("thought", content);
    return { kind: "thought", content };
  }

  private async answer(input: Running, content: string): Promise<AgentEvent> {
    await input.steps.note("answer", content);
    return { kind: "answer", content };
  }
}
