import { ErrorType, type WireError } from "@toolmesh/schema";
import type { Logger } from "pino";
import type { z } from "zod";
import type { PulsarClient, Subscription } from "./client.js";
import { decodeJson } from "./json.js";
import type { IncomingMessage, Properties } from "./transport.js";

/** Throw it from a handler to choose the error type of the reply (otherwise `errorType` is used). */
export class ReplyError extends Error {
  override name = "ReplyError";
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

export interface RequestContext {
  id: string;
  properties: Properties;
  message: IncomingMessage;
  logger: Logger;
}

export type RequestOutcome = "ok" | "error" | "bad-request";

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
  /** Error type for a handler that throws something other than ReplyError. */
  errorType?: string;
  concurrency?: number;
  /** Called when a request arrives, and once more with how it ended; used for metrics. */
  onStarted?: () => void;
  onFinished?: (outcome: RequestOutcome, durationMs: number) => void;
}

function isAsyncIterable<R>(value: unknown): value is AsyncIterable<R> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}

/**
 * Serves requests on a topic: decodes and validates each one, runs the handler, replies on the response
 * topic with the request's `id`. A malformed request or a failing handler gets an error reply and is
 * logged; the loop keeps serving. Only a reply that cannot be sent nacks the request.
 */
export function serve<S extends z.ZodType, R>(client: PulsarClient, options: ServeOptions<S, R>): Promise<Subscription> {
  const logger = client.logger.child({ topic: options.requestTopic });
  const reply = (body: R, id: string) => client.sendJson(options.responseTopic, body, { id });

  const handle = async (message: IncomingMessage) => {
    const started = performance.now();
    options.onStarted?.();
    const finish = (outcome: RequestOutcome) => options.onFinished?.(outcome, performance.now() - started);
    const id = message.properties.id;
    if (!id) {
      logger.warn({ messageId: message.messageId }, "request has no 'id' property; nobody to reply to, dropped");
      finish("bad-request");
      return;
    }
    const decoded = decodeJson(options.requestSchema, message.payload);
    if (!decoded.ok) {
      logger.warn({ id, reason: decoded.reason }, "bad request");
      await reply(options.errorReply({ type: ErrorType.badRequest, message: decoded.reason }), id);
      finish("bad-request");
      return;
    }
    const context: RequestContext = { id, properties: message.properties, message, logger: logger.child({ id }) };
    let outcome: RequestOutcome = "ok";
    try {
      const result = options.handler(decoded.value, context);
      if (isAsyncIterable<R>(result)) {
        for await (const part of result) await reply(part, id);
      } else {
        await reply(await result, id);
      }
    } catch (err) {
      outcome = "error";
      const type = err instanceof ReplyError ? err.type : (options.errorType ?? ErrorType.internal);
      const text = err instanceof Error ? err.message : String(err);
      context.logger.warn({ err, type }, "request failed");
      await reply(options.errorReply({ type, message: text }), id);
    }
    finish(outcome);
  };

  return client.subscribe(
    {
      topic: options.requestTopic,
      subscription: options.subscription,
      type: "Shared",
      concurrency: options.concurrency ?? 16,
    },
    handle,
  );
}
