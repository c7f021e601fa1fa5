import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { AsyncQueue } from "./async-queue.js";
import type { PulsarClient } from "./client.js";
import { DEADLINE_PROPERTY, deadlineAfter } from "./deadline.js";
import { ClosedError, NotRunningError, ReplyFormatError, RequestTimeoutError } from "./errors.js";
import { ConcurrencyLimiter } from "./limiter.js";
import { decodeJson, encodeJson } from "./json.js";
import { ReplyOrder, SEQUENCE_PROPERTY, replyNumber } from "./reply-order.js";
import { ReplySessions } from "./reply-sessions.js";
import { MIN_REQUEST_SESSIONS } from "./request-server.js";
import { SpanKind, TraceAttr, type TraceContext, injectTraceContext, topicName, traced } from "./tracing.js";
import type { IncomingMessage, Properties } from "./transport.js";

/** The `error.type` of a reply in the wire's error shape (design §2), if it is one. */
function wireErrorType(reply: unknown): string | undefined {
  const error = reply && typeof reply === "object" ? (reply as { error?: unknown }).error : undefined;
  if (!error) return undefined;
  return typeof error === "object" && typeof (error as { type?: unknown }).type === "string" ? (error as { type: string }).type : "error";
}

export interface RequestClientOptions<S extends z.ZodType> {
  requestTopic: string;
  responseTopic: string;
  /** Every reply is parsed with it; a reply that fails fails its call. */
  responseSchema: S;
  /** Start of this client's own response subscription name (a uuid follows). */
  subscriptionPrefix?: string;
  /** Default time allowed for a reply (and between the replies of a stream). */
  timeoutMs?: number;
  /**
   * Requests this client has on the wire at once; more wait here. Request topics are non-persistent: a
   * burst larger than a server's 1000 permits would be dropped by the broker, not queued (default 500).
   */
  maxInFlight?: number;
}

export interface RequestOptions<R> {
  timeoutMs?: number;
  /** Marks the reply that ends the call (e.g. `r => r.end_of_stream`); by default the first reply does. */
  isLast?: (reply: R) => boolean;
  /** Called with every reply, the last included, in arrival order. */
  onReply?: (reply: R) => void;
  properties?: Properties;
  /** The caller's span: this request's client span is its child (and goes on the wire as `traceparent`). */
  trace?: TraceContext | undefined;
}

interface PendingCall<R> {
  order: ReplyOrder<R>;
  isLast: (reply: R) => boolean;
  onReply: ((reply: R) => void) | undefined;
  resolve: (reply: R) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
  arm: () => void;
  /** Whether any reply came (then something consumes the request topic). */
  replied: boolean;
  /** Until the first reply: when to ask whether the service runs at all (checkServiceLater). */
  checkTimer?: NodeJS.Timeout;
}

/**
 * Sessions on a client's own reply subscription, once its server numbers its replies. Replies to small
 * calls must not wait behind a multi-megabyte one: the broker drops a reply (non-persistent topic) when no
 * session can take it, and a session whose connection is still carrying a big reply cannot. Several
 * sessions sit on separate connections (binary lanes; the WebSocket proxy's connections, picked at
 * random), as for requests; the protection is partial: once every session carries a big reply, what comes
 * next is dropped. But Shared sessions do not keep order, so a client starts with one session and opens
 * the others only once a reply carries `seq` (serve() numbers them, ReplyOrder restores their order); a
 * server that sends none (TrustGraph's) keeps it at one, in order, with the old head-of-line limit. A
 * reply without `seq` after widening (mixed servers on one topic) takes it back to one for good.
 */
export const REPLY_SESSIONS = MIN_REQUEST_SESSIONS;

/**
 * Request/response over a pair of topics: its own subscription on the response topic (a unique name, made
 * before anything is sent, because non-persistent topics drop what nobody is subscribed to), an `id`
 * property on each request, replies matched by that id, ids it does not own dropped. The subscription
 * is Shared by this client's sessions alone: one while its servers send unnumbered replies (TrustGraph's,
 * taken in arrival order), REPLY_SESSIONS once they number them (`seq`, put back in order by ReplyOrder;
 * see REPLY_SESSIONS). Many calls may be in flight at once. Each request also carries its `deadline`
 * (when this client stops waiting), so a server skips work nobody waits for; a request over the size
 * limit is refused before it is queued.
 * close() ends its subscription and lets go of its producer, so nothing of it stays open on the broker.
 */
export class RequestClient<S extends z.ZodType> {
  private readonly pending = new Map<string, PendingCall<z.output<S>>>();
  private readonly sending: ConcurrencyLimiter;
  private sessions: ReplySessions | undefined;
  private closed = false;

  private constructor(
    private readonly client: PulsarClient,
    private readonly options: RequestClientOptions<S>,
  ) {
    this.sending = new ConcurrencyLimiter(options.maxInFlight ?? 500);
  }

  static async create<S extends z.ZodType>(client: PulsarClient, options: RequestClientOptions<S>): Promise<RequestClient<S>> {
    const requestClient = new RequestClient(client, options);
    await requestClient.start();
    return requestClient;
  }

  get requestTopic(): string {
    return this.options.requestTopic;
  }

  get inFlight(): number {
    return this.pending.size;
  }

  /** Sessions on its reply subscription now (see REPLY_SESSIONS). */
  get replySessions(): number {
    return this.sessions?.count ?? 0;
  }

  /**
   * Sends one request; resolves with the last reply (the only one, unless `isLast` says otherwise).
   * Rejects at once with MessageTooLargeError when the request is over the broker's size limit.
   */
  request(body: unknown, options: RequestOptions<z.output<S>> = {}): Promise<z.output<S>> {
    const topic = this.options.requestTopic;
    // One client span per call, its context sent along as `traceparent` (a no-op while tracing is off).
    const span = { kind: SpanKind.CLIENT, attributes: { [TraceAttr.topic]: topic }, parent: options.trace };
    return traced(`${topicName(topic)} request`, span, async (scope) => {
      const payload = encodeJson(body);
      const id = randomUUID();
      const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? 30_000;
      // One properties object for the size check and the send (the hot path copies nothing twice).
      const properties = injectTraceContext({ ...options.properties, id, [DEADLINE_PROPERTY]: deadlineAfter(timeoutMs) }, scope.context);
      this.client.assertFits(topic, payload, properties, "a request");
      const reply = await this.sending.run(() => this.send(id, payload, timeoutMs, properties, options));
      const errorType = wireErrorType(reply);
      if (errorType !== undefined) scope.setOutcome("error-reply", errorType);
      return reply;
    });
  }

  private async send(
    id: string,
    payload: Buffer,
    timeoutMs: number,
    properties: Properties,
    options: RequestOptions<z.output<S>>,
  ): Promise<z.output<S>> {
    if (this.closed) throw new ClosedError(`request client for ${this.options.requestTopic} is closed`);
    const reply = new Promise<z.output<S>>((resolve, reject) => {
      const call: PendingCall<z.output<S>> = {
        order: new ReplyOrder(),
        isLast: options.isLast ?? (() => true),
        onReply: options.onReply,
        resolve,
        reject,
        timer: undefined as unknown as NodeJS.Timeout,
        replied: false,
        arm: () => {
          clearTimeout(call.timer);
          call.timer = setTimeout(() => {
            this.forget(id, call);
            reject(new RequestTimeoutError(this.options.requestTopic, this.options.responseTopic, timeoutMs, id));
          }, timeoutMs);
        },
      };
      call.arm();
      this.pending.set(id, call);
      this.checkServiceLater(id, call, timeoutMs);
    });
    // Not awaited: while the broker is away the send waits for a reconnect, and the call's own timeout
    // must still apply. A send that fails ends the call if it is still waiting.
    // The deadline counts from now: the request may have waited for a slot since it was sized.
    properties[DEADLINE_PROPERTY] = deadlineAfter(timeoutMs);
    this.client.send(this.options.requestTopic, payload, properties).catch((err: Error) => {
      const call = this.pending.get(id);
      if (!call) return;
      this.forget(id, call);
      call.reject(err);
    });
    return reply;
  }

  /**
   * When the client has a ServiceCheck: once the call has waited its `afterMs` with no reply, asks the
   * broker whether the service runs at all, and ends the call with NotRunningError if it does not. A call
   * answered in time costs one timer, cleared at its first reply (or when the call ends).
   */
  private checkServiceLater(id: string, call: PendingCall<z.output<S>>, timeoutMs: number): void {
    const check = this.client.serviceCheck;
    if (!check || check.afterMs >= timeoutMs) return;
    const { requestTopic, responseTopic } = this.options;
    call.checkTimer = setTimeout(() => {
      if (this.pending.get(id) !== call || call.replied) return;
      void check.notRunning(requestTopic, responseTopic).then((notRunning) => {
        if (!notRunning || this.pending.get(id) !== call || call.replied) return;
        this.forget(id, call);
        call.reject(new NotRunningError(requestTopic, responseTopic, check.afterMs, id));
      });
    }, check.afterMs).unref();
  }

  /** Takes a call off the pending list and stops its timers; the caller then settles it. */
  private forget(id: string, call: PendingCall<z.output<S>>): void {
    clearTimeout(call.timer);
    clearTimeout(call.checkTimer);
    this.pending.delete(id);
  }

  /** Sends one request and yields each reply as it arrives, ending after the one `isLast` marks. */
  stream(
    body: unknown,
    options: Omit<RequestOptions<z.output<S>>, "onReply"> & { isLast: (reply: z.output<S>) => boolean },
  ): AsyncIterable<z.output<S>> {
    const queue = new AsyncQueue<z.output<S>>();
    this.request(body, { ...options, onReply: (reply) => queue.push(reply) }).then(
      () => queue.end(),
      (err: Error) => queue.end(err),
    );
    return queue;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const [id, call] of this.pending) {
      this.forget(id, call);
      call.reject(new ClosedError(`request ${id} to ${this.options.requestTopic} abandoned: client closed`));
    }
    await this.sessions?.close();
    if (this.sessions) await this.client.releaseProducer(this.options.requestTopic);
  }

  private async start(): Promise<void> {
    const prefix = this.options.subscriptionPrefix ?? "toolmesh-client";
    const sessions = new ReplySessions(
      this.client,
      {
        topic: this.options.responseTopic,
        subscription: `${prefix}-${randomUUID()}`,
        // Shared by this client's own sessions only (the name is unique), so more can join once its server
        // numbers its replies: the broker gives each reply to one that can take it at once. Not Key_Shared:
        // that gives all replies to one request (its key) to one session, and drops the ones behind a big
        // reply while that session's connection carries it.
        type: "Shared",
        // Replies are matched in memory, never slow: a large window keeps 1000s of calls in flight.
        receiverQueueSize: 1000,
        concurrency: 1000,
      },
      async (message) => this.onReply(message),
      REPLY_SESSIONS,
    );
    await sessions.start();
    this.sessions = sessions;
    // Held from here on (not before: a client whose subscribe failed never existed), released by close().
    this.client.holdProducer(this.options.requestTopic);
  }

  private onReply(message: IncomingMessage): void {
    const id = message.properties.id;
    if (id) this.sessions?.observe(replyNumber(message.properties[SEQUENCE_PROPERTY]) !== undefined);
    const call = id ? this.pending.get(id) : undefined;
    if (!id || !call) return; // another client's reply, or one that came after its timeout
    const decoded = decodeJson(this.options.responseSchema, message.payload);
    if (!decoded.ok) {
      this.forget(id, call);
      call.reject(new ReplyFormatError(`reply on ${this.options.responseTopic} to request ${id}: ${decoded.reason}`));
      return;
    }
    if (!call.replied) {
      call.replied = true;
      clearTimeout(call.checkTimer);
    }
    call.arm();
    for (const reply of call.order.accept(message.properties[SEQUENCE_PROPERTY], decoded.value)) {
      call.onReply?.(reply);
      if (call.isLast(reply)) {
        this.forget(id, call);
        call.resolve(reply);
        return;
      }
    }
  }
}
