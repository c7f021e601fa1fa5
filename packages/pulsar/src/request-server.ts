import { ErrorType, ServiceError, type WireError } from "@toolmesh/schema";
import type { Logger } from "pino";
import type { z } from "zod";
import { ABORTED, unlessAborted } from "./abort.js";
import type { PulsarClient, Subscription } from "./client.js";
import { isExpired } from "./deadline.js";
import { MessageTooLargeError } from "./errors.js";
import { decodeJson } from "./json.js";
import { SEQUENCE_PROPERTY } from "./reply-order.js";
import { SpanKind, TraceAttr, type TraceScope, extractTraceContext, topicName, traced } from "./tracing.js";
import type { IncomingMessage, Properties } from "./transport.js";

export interface RequestContext {
  id: string;
  properties: Properties;
  message: IncomingMessage;
  logger: Logger;
  /** This request's server span: annotate it, and give its `context` to the calls made for the request. */
  trace: TraceScope;
}

/** How a handled request ended (`cut-short`: still running at `windDown`, answered `unavailable`). */
export type RequestOutcome = "ok" | "error" | "bad-request" | "too-large" | "cut-short";
/** Why a request was not handled: the backlog was full (answered `overloaded`), or its deadline had passed (not answered). */
export type SkipReason = "overloaded" | "expired";

/**
 * Fewest sessions a served request topic gets. The binary transport puts them on separate connections;
 * the broker's WebSocket proxy puts each on one of its `webSocketConnectionsPerBroker` connections at
 * random, so with k sessions over C connections all k share one with odds C^(1-k): 1 in 512 with 4
 * sessions and the 8 connections infra/pulsar/standalone.conf sets (1 in 2 with 2 sessions and the
 * default of one per core on a 2-core broker). Sharing one is what lets a big message drop small ones.
 */
export const MIN_REQUEST_SESSIONS = 4;

/** Requests in hand (handled + waiting) past which new ones are answered `overloaded`. */
export const DEFAULT_MAX_BACKLOG = 1_000;
/** Longest error text sent in a reply. */
const MAX_ERROR_TEXT = 4_096;

export interface ServeOptions<S extends z.ZodType, R> {
  requestTopic: string;
  responseTopic: string;
  /** Shared subscription name: replicas of one service share it, and so share the load. */
  subscription: string;
  requestSchema: S;
  /** One reply (a value) or a stream (an async iterable); each reply goes out with the request's id. */
  handler: (request: z.output<S>, context: RequestContext) => Promise<R> | AsyncIterable<R>;
  /** Builds this service's error reply, e.g. `{error, response: "", end_of_stream: true}`. */
  errorReply: (error: WireError) => R;
  /** Error type for a handler that throws something other than a ServiceError. */
  errorType?: string;
  concurrency?: number;
  /** Requests in hand at once (handled + waiting for a slot); past it new ones get `overloaded` (default 1000). */
  maxBacklog?: number;
  /**
   * Sessions on the request subscription. On a non-persistent topic the broker drops what arrives while
   * no session can take it: every session's receiver queue (1000 each on the WebSocket proxy) full, or
   * every session's connection busy writing (a multi-megabyte message takes a while). The default, one per
   * 1000 of backlog plus one and at least MIN_REQUEST_SESSIONS, leaves room past a full backlog and a
   * session on another connection while one writes a big message.
   */
  consumers?: number;
  /** Called when a request's handling starts, and once more with how it ended; used for metrics. */
  onStarted?: () => void;
  onFinished?: (outcome: RequestOutcome, durationMs: number) => void;
  /** Called for each request not handled, with the reason; used for metrics. */
  onSkipped?: (reason: SkipReason) => void;
  /**
   * Aborted a little before the service's shutdown timeout: requests still being handled then are
   * answered `unavailable` ("cut short ...; retry") at once, and whatever their handlers send later is
   * dropped, instead of the process exiting with them unanswered.
   */
  windDown?: AbortSignal;
}

/** How long a closed request consumer still takes requests the broker sent just too late (binary transport). */
const REQUEST_CLOSE_LINGER_MS = 200;

function isAsyncIterable<R>(value: unknown): value is AsyncIterable<R> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}

/**
 * Serves requests on a topic: decodes and validates each one, runs the handler, replies on the response
 * topic with the request's `id`. A malformed request or a failing handler gets an error reply and is
 * logged; a reply over the size limit is replaced by a `too-large` error reply; the loop keeps serving.
 * Past `maxBacklog` requests in hand, new ones are answered `overloaded` at once; requests whose
 * `deadline` property has passed are skipped (nobody waits for the answer). Only a reply that cannot
 * be sent nacks the request.
 */
export async function serve<S extends z.ZodType, R>(client: PulsarClient, options: ServeOptions<S, R>): Promise<Subscription> {
  const logger = client.logger.child({ topic: options.requestTopic });
  const maxBacklog = options.maxBacklog ?? DEFAULT_MAX_BACKLOG;
  /**
   * Sends the replies to one request, numbered in order (SEQUENCE_PROPERTY: the client's sessions may get
   * them out of order) and keyed by its id (a partitioned response topic keeps them on one partition).
   * A reply refused as too large uses no number.
   */
  const replier = (id: string) => {
    let seq = 0;
    return async (body: R) => {
      await client.sendJson(options.responseTopic, body, { id, [SEQUENCE_PROPERTY]: String(seq) }, id);
      seq += 1;
    };
  };
  type Reply = ReturnType<typeof replier>;
  // An error's text may quote the request (a 4 MB argument, say): cut it so the error reply always fits.
  const replyError = (type: string, text: string, reply: Reply) =>
    reply(options.errorReply({ type, message: text.length > MAX_ERROR_TEXT ? `${text.slice(0, MAX_ERROR_TEXT)}... (cut)` : text }));

  /** Sends a reply; one over the size limit becomes a `too-large` error reply (then false is returned). */
  const replyOrTooLarge = async (body: R, id: string, reply: Reply, log: Logger): Promise<boolean> => {
    try {
      await reply(body);
      return true;
    } catch (err) {
      if (!(err instanceof MessageTooLargeError)) throw err;
      const message = `the reply of ${err.size} bytes to request ${id} on ${options.requestTopic} exceeds the message size limit of ${err.limit} bytes`;
      log.warn({ size: err.size, limit: err.limit }, "reply too large; answering with an error instead");
      await replyError(ErrorType.tooLarge, message, reply);
      return false;
    }
  };

  /** Not for the handler: no id (nobody to answer), or past its deadline (nobody waiting). */
  const unanswerable = (message: IncomingMessage): boolean => {
    if (!message.properties.id) {
      logger.warn({ messageId: message.messageId }, "request has no 'id' property; nobody to reply to, dropped");
      options.onStarted?.();
      options.onFinished?.("bad-request", 0);
      return true;
    }
    if (isExpired(message.properties)) {
      logger.debug({ id: message.properties.id, deadline: message.properties.deadline }, "request past its deadline; skipped");
      options.onSkipped?.("expired");
      return true;
    }
    return false;
  };

  // Each request handled runs in a server span, the child of the caller's span when the request carries
  // a `traceparent` (peers that send none, like TrustGraph's, start a trace here).
  const handle = async (message: IncomingMessage) => {
    if (unanswerable(message)) return;
    const spanOptions = {
      kind: SpanKind.SERVER,
      parent: extractTraceContext(message.properties),
      attributes: { [TraceAttr.topic]: options.requestTopic },
    };
    await traced(`${topicName(options.requestTopic)} serve`, spanOptions, (scope) => handleRequest(message, scope));
  };

  const handleRequest = async (message: IncomingMessage, scope: TraceScope) => {
    const id = message.properties.id!;
    const reply = replier(id);
    const started = performance.now();
    options.onStarted?.();
    const finish = (outcome: RequestOutcome, errorType?: string) => {
      if (outcome !== "ok") scope.setOutcome(outcome, errorType);
      options.onFinished?.(outcome, performance.now() - started);
    };
    const decoded = decodeJson(options.requestSchema, message.payload);
    if (!decoded.ok) {
      logger.warn({ id, reason: decoded.reason }, "bad request");
      await replyError(ErrorType.badRequest, decoded.reason, reply);
      finish("bad-request", ErrorType.badRequest);
      return;
    }
    const context: RequestContext = { id, properties: message.properties, message, logger: logger.child({ id }), trace: scope };
    let outcome: RequestOutcome = "ok";
    let errorType: string | undefined;
    try {
      const result = options.handler(decoded.value, context);
      if (isAsyncIterable<R>(result)) {
        const parts = result[Symbol.asyncIterator]();
        for (;;) {
          const next = await unlessAborted(parts.next(), options.windDown);
          if (next === ABORTED) {
            // Not awaited: a handler stuck in its work would hold the stop up.
            void parts.return?.()?.catch(() => undefined);
            outcome = await cutShort(reply, context.logger);
            break;
          }
          if (next.done) break;
          // Leaving the loop after a too-large chunk ends the stream (its generator is returned).
          if (!(await replyOrTooLarge(next.value, id, reply, context.logger))) {
            outcome = "too-large";
            await parts.return?.();
            break;
          }
        }
      } else {
        const value = await unlessAborted(Promise.resolve(result), options.windDown);
        if (value === ABORTED) outcome = await cutShort(reply, context.logger);
        else if (!(await replyOrTooLarge(value, id, reply, context.logger))) outcome = "too-large";
      }
    } catch (err) {
      outcome = "error";
      const type = err instanceof ServiceError ? err.type : (options.errorType ?? ErrorType.internal);
      const text = err instanceof Error ? err.message : String(err);
      // A ServiceError is a refusal the handler meant (bad input, not found): its type and text say it all,
      // a stack would only add noise. Anything else is unexpected and keeps its stack.
      if (err instanceof ServiceError) context.logger.warn({ type, reason: text }, "request failed");
      else context.logger.warn({ err, type }, "request failed");
      errorType = type;
      await replyError(type, text, reply);
    }
    finish(outcome, outcome === "too-large" ? ErrorType.tooLarge : outcome === "cut-short" ? ErrorType.unavailable : errorType);
  };

  const cutShort = async (reply: Reply, log: Logger): Promise<RequestOutcome> => {
    log.warn("shutdown timeout near: answering the request in hand as cut short");
    const text = `${options.requestTopic}: the service instance is stopping and cut this request short before its shutdown timeout (SHUTDOWN_TIMEOUT_MS); retry`;
    await replyError(ErrorType.unavailable, text, reply);
    return "cut-short";
  };

  const overloaded = async (message: IncomingMessage) => {
    if (unanswerable(message)) return;
    options.onSkipped?.("overloaded");
    const text = `${options.requestTopic} has ${maxBacklog} requests in hand, its limit; retry later`;
    await replyError(ErrorType.overloaded, text, replier(message.properties.id!));
  };

  // The reply producer opens before the first request, not at the first reply: a running server then
  // shows on its response topic (a caller's ServiceCheck waits for an instance that is winding down, whose
  // request consumer is closed), and the first reply does not wait for it.
  await client.producer(options.responseTopic);
  return client.subscribe(
    {
      topic: options.requestTopic,
      subscription: options.subscription,
      type: "Shared",
      concurrency: options.concurrency ?? 16,
      consumers: options.consumers ?? Math.max(MIN_REQUEST_SESSIONS, Math.ceil(maxBacklog / 1_000) + 1),
      maxBacklog,
      onOverload: overloaded,
      // A request the broker writes just after confirming a close would be lost (see closeLingerMs); graceful-close.test.ts
      // lost a call so about one run in 25 without it.
      closeLingerMs: REQUEST_CLOSE_LINGER_MS,
    },
    handle,
  );
}
