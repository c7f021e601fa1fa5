import { ErrorCode, type CallToolRequest, type CallToolResult, type ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";
import { MessageTooLargeError, NotRunningError, RequestTimeoutError } from "@toolmesh/pulsar";
import { ErrorType } from "@toolmesh/schema";
import type { ArgumentValidator } from "../argument-validator.js";
import { type BindingInvoker, ToolFailure } from "../binding-invoker.js";
import { errorResult, toCallResult } from "../call-result.js";
import type { CallOutcome, McpMetrics } from "../metrics.js";
import { RpcError } from "../rpc-error.js";
import type { SessionCatalog } from "../session-catalog.js";

export interface ToolsCallDeps {
  invoker: BindingInvoker;
  validator: ArgumentValidator;
  metrics: McpMetrics;
  logger: Logger;
  callTimeoutMs: number;
  /** Aborted a little before the instance's SHUTDOWN_TIMEOUT_MS runs out: calls still running are answered "cut short". */
  windDown: AbortSignal;
}

/** What the SDK hands a request handler, as far as tools/call uses it. */
export interface CallContext {
  sessionId: string | undefined;
  signal: AbortSignal;
  progressToken: string | number | undefined;
  sendNotification: (notification: ServerNotification) => Promise<void>;
}

class CallDeadline extends Error {}
class CutShort extends Error {}

/**
 * Rejects when the whole call (every streamed chunk included) outlasts `ms`, the client cancels, or the
 * instance winds down before its shutdown timeout.
 */
function within<T>(work: Promise<T>, ms: number, signal: AbortSignal, windDown: AbortSignal): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  let onWindDown: (() => void) | undefined;
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CallDeadline()), ms);
    onAbort = () => reject(new Error("cancelled by the client"));
    onWindDown = () => reject(new CutShort());
    signal.addEventListener("abort", onAbort, { once: true });
    if (windDown.aborted) onWindDown();
    else windDown.addEventListener("abort", onWindDown, { once: true });
  });
  return Promise.race([work, stop]).finally(() => {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener("abort", onAbort);
    if (onWindDown) windDown.removeEventListener("abort", onWindDown);
  });
}

/**
 * tools/call on a session's catalog view: an unknown tool is a protocol error (the spec's "unknown
 * tool"); bad arguments, tool errors and timeouts are `isError` results naming the tool and the reason.
 * One log line per call (session, revision, tool, outcome, time), never the arguments.
 */
export function createToolsCallHandler(deps: ToolsCallDeps) {
  return async (catalog: SessionCatalog, params: CallToolRequest["params"], context: CallContext): Promise<CallToolResult> => {
    const started = performance.now();
    const view = catalog.view;
    const name = params.name;
    const record = (outcome: CallOutcome, reason?: string) => {
      const ms = performance.now() - started;
      deps.metrics.called(outcome === "unknown-tool" ? "(unknown)" : name, outcome, ms);
      deps.logger.info(
        {
          session: context.sessionId,
          revision: view.revision.revision_number,
          group: view.group ?? undefined,
          tool: name,
          outcome,
          ms: Math.round(ms * 10) / 10,
          ...(reason ? { reason } : {}),
        },
        "tools/call",
      );
    };
    const finish = (outcome: CallOutcome, result: CallToolResult, reason?: string): CallToolResult => {
      record(outcome, reason);
      return result;
    };

    const tool = view.tool(name);
    if (!tool) {
      record("unknown-tool");
      throw new RpcError(
        ErrorCode.InvalidParams,
        `unknown tool '${name}': ${view.label} has no such tool (tools/list shows what it offers)`,
        { type: ErrorType.notFound },
      );
    }
    const args = params.arguments ?? {};
    const problems = deps.validator.problems(tool, args);
    if (problems) {
      const message = `invalid arguments for ${name}: ${problems}. Expected schema: ${JSON.stringify(tool.parameters_schema)}`;
      return finish("invalid-arguments", errorResult(message), problems);
    }
    const { progressToken } = context;
    const onChunk =
      progressToken === undefined
        ? undefined
        : (chunk: string, index: number) =>
            void context
              .sendNotification({ method: "notifications/progress", params: { progressToken, progress: index + 1, message: chunk } })
              .catch(() => undefined);
    try {
      const output = await within(
        deps.invoker.invoke(tool, args, { timeoutMs: deps.callTimeoutMs, ...(onChunk ? { onChunk } : {}) }),
        deps.callTimeoutMs,
        context.signal,
        deps.windDown,
      );
      const result = toCallResult(tool, output);
      return finish(result.isError ? "tool-error" : "ok", result);
    } catch (err) {
      if (err instanceof CutShort) {
        const reason =
          "this MCP server instance is stopping and its shutdown timeout (SHUTDOWN_TIMEOUT_MS) ran out before the tool answered";
        return finish("cut-short", errorResult(`tool ${name} was cut short: ${reason}; call it again`), reason);
      }
      if (err instanceof CallDeadline || err instanceof RequestTimeoutError) {
        const where = tool.binding.kind === "tool-service" ? tool.binding.request_topic : "the mcp-tool service";
        const reason = `no answer from ${where} within ${deps.callTimeoutMs} ms (is it running?)`;
        return finish("timeout", errorResult(`tool ${name} timed out: ${reason}`), reason);
      }
      if (err instanceof NotRunningError) {
        const reason = `its service is not running (nothing consumes ${err.requestTopic}, nothing publishes on ${err.responseTopic})`;
        return finish("not-running", errorResult(`tool ${name} is unavailable: ${reason}`), reason);
      }
      // Arguments too large for a broker message are the caller's to fix: no warning, no stack trace.
      if (err instanceof MessageTooLargeError) {
        const reason = `could not call it: ${err.message}`;
        return finish("invalid-arguments", errorResult(`tool ${name} failed: ${reason}`), reason);
      }
      const reason = err instanceof ToolFailure ? err.message : `could not call it: ${(err as Error).message}`;
      if (!(err instanceof ToolFailure)) deps.logger.warn({ err, tool: name }, "tool call failed");
      return finish("tool-error", errorResult(`tool ${name} failed: ${reason}`), reason);
    }
  };
}
