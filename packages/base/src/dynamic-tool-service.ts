import type { Logger } from "pino";
import { type Subscription, TraceAttr, type TraceContext, type TraceScope } from "@toolmesh/pulsar";
import {
  ErrorType,
  type ManifestEntry,
  ToolServiceRequest,
  type ToolServiceResponseWire,
  type TopicLayout,
  requestSubscription,
} from "@toolmesh/schema";
import type { ServiceRuntime } from "./runtime.js";

/** What a tool returns: text as is, anything else as JSON text. */
export type ToolResult = string | number | boolean | null | Record<string, unknown> | unknown[];

export interface InvocationContext {
  id: string;
  logger: Logger;
  /** The request's span: the parent to give the calls a tool makes (e.g. `ToolServiceClient.call`'s `trace`). */
  trace: TraceContext;
}

function toText(result: ToolResult): string {
  return typeof result === "string" ? result : JSON.stringify(result);
}

function isAsyncIterable(value: unknown): value is AsyncIterable<ToolResult> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}

/**
 * Base class of a tool service (design §2, TrustGraph's DynamicToolService). Subclass it, set `id` and
 * `topic`, and implement `invoke`: return a result for one reply, or yield chunks for a stream (each chunk
 * one reply, the last marked end_of_stream). A thrown error becomes a `tool-service-error` reply.
 */
export abstract class DynamicToolService {
  /** Service id: the Shared subscription is `{id}-request`, so replicas share requests. */
  abstract readonly id: string;
  /** Topic name: requests on non-persistent://<tenant>/request/{topic}, replies on .../response/{topic}. */
  abstract readonly topic: string;
  /** Requests one instance handles at once. */
  concurrency = 8;

  abstract invoke(
    user: string,
    config: Record<string, unknown>,
    args: Record<string, unknown>,
    context: InvocationContext,
  ): Promise<ToolResult> | AsyncIterable<ToolResult>;

  /** The tools this service offers (bound to its topics in `topics`), announced at start so a registry can find them without config. */
  manifest(_topics: TopicLayout): ManifestEntry[] {
    return [];
  }

  /**
   * Serves the topic; then, unless `announce` is false, announces the manifest on `announceTopic` (the
   * runtime's announcement topic unless given) and again
   * every `announceIntervalMs` — a heartbeat: a registry forgets announcements that stop coming.
   */
  async start(
    runtime: ServiceRuntime,
    {
      announce = true,
      announceTopic = runtime.topics.toolAnnouncements,
      announceIntervalMs = 60_000,
    }: { announce?: boolean; announceTopic?: string; announceIntervalMs?: number } = {},
  ): Promise<Subscription> {
    const subscription = await runtime.serve({
      ...runtime.topics.pair(this.topic),
      subscription: requestSubscription(this.id),
      requestSchema: ToolServiceRequest,
      errorType: ErrorType.toolServiceError,
      concurrency: this.concurrency,
      errorReply: (error): ToolServiceResponseWire => ({ error, response: "", end_of_stream: true }),
      handler: (request, context) =>
        this.reply(request, context.trace, { id: context.id, logger: context.logger, trace: context.trace.context }),
    });
    if (announce && this.manifest(runtime.topics).length > 0) {
      await this.announce(runtime, announceTopic);
      const heartbeat = setInterval(() => {
        this.announce(runtime, announceTopic, { quiet: true }).catch((err: unknown) =>
          runtime.logger.warn({ err }, "re-announcement failed"),
        );
      }, announceIntervalMs).unref();
      runtime.onShutdown(() => clearInterval(heartbeat));
    }
    return subscription;
  }

  /** Publishes the manifest on the persistent announcement topic (skipped when there is none). */
  async announce(runtime: ServiceRuntime, topic: string = runtime.topics.toolAnnouncements, { quiet = false } = {}): Promise<void> {
    const manifest = this.manifest(runtime.topics);
    if (manifest.length === 0) return;
    await runtime.pulsar.sendJson(topic, {
      service_id: this.id,
      manifest,
      announced_at: new Date().toISOString(),
    });
    if (!quiet) runtime.logger.info({ tools: manifest.map((t) => t.name) }, "announced manifest");
  }

  private reply(request: ToolServiceRequest, span: TraceScope, context: InvocationContext) {
    span.set({ [TraceAttr.toolService]: this.id });
    const result = this.invoke(request.user, request.config, request.arguments, context);
    if (isAsyncIterable(result)) return streamReplies(result);
    return result.then((value): ToolServiceResponseWire => ({ error: null, response: toText(value), end_of_stream: true }));
  }
}

/** Holds one chunk back so the last one can carry end_of_stream; an empty stream still ends. */
async function* streamReplies(chunks: AsyncIterable<ToolResult>): AsyncGenerator<ToolServiceResponseWire> {
  let held: string | undefined;
  try {
    for await (const chunk of chunks) {
      if (held !== undefined) yield { error: null, response: held, end_of_stream: false };
      held = toText(chunk);
    }
  } catch (err) {
    if (held !== undefined) yield { error: null, response: held, end_of_stream: false };
    throw err;
  }
  yield { error: null, response: held ?? "", end_of_stream: true };
}
