import pino, { type Logger } from "pino";
import { parseTopic } from "@toolmesh/schema";
import { authTokenOf } from "./auth/auth-token.js";
import { ServiceCheck } from "./service-check.js";
import { ClosedError, MessageTooLargeError } from "./errors.js";
import { encodeJson } from "./json.js";
import { ConcurrencyLimiter } from "./limiter.js";
import {
  type ConsumerChannel,
  type IncomingMessage,
  type ProducerChannel,
  type Properties,
  type SubscribeOptions,
  type Transport,
  messageSize,
} from "./transport.js";
import { TopicStatsReader } from "./topic-stats.js";
import { createTransport, type TransportSettings } from "./transport-factory.js";

/** How long a request waits for its first reply before the broker is asked whether its service runs at all. */
export const DEFAULT_SERVICE_CHECK_MS = 2_000;

export interface PulsarClientOptions extends TransportSettings {
  logger?: Logger;
  /** Replaces the transport the settings would select (tests of pure logic use an in-memory one). */
  transport?: Transport;
  /**
   * How long a request waits for its first reply before the broker's admin API is asked whether its
   * service runs at all (see ServiceCheck); 0 never asks. Default 2 s, with the web service URL and the
   * client's credentials; never with an injected transport unless `serviceCheck` is given.
   */
  serviceCheckAfterMs?: number;
  /** Replaces the check the settings would make (tests). */
  serviceCheck?: ServiceCheck;
}

export interface HandlerOptions extends SubscribeOptions {
  /** Messages handled at once by this subscription (default 16). */
  concurrency?: number;
  /**
   * Sessions opened on a Shared or Key_Shared subscription (default 1). Each brings its own receiver queue: on a
   * non-persistent topic a burst larger than the permits of all of them is dropped by the broker.
   */
  consumers?: number;
  /**
   * Most messages in hand at once, handled or waiting for a slot. Past it each new message goes to
   * `onOverload` (at once, not queued) instead of the handler. Without `onOverload` there is no bound.
   */
  maxBacklog?: number;
  onOverload?: MessageHandler;
}

/** The handler's outcome decides the ack: resolve = ack, throw = nack (the broker redelivers). */
export type MessageHandler = (message: IncomingMessage) => Promise<void>;

export interface Subscription {
  readonly topic: string;
  readonly subscription: string;
  readonly connected: boolean;
  /** Messages in hand: being handled or waiting for a slot. */
  readonly backlog: number;
  /** Stops taking messages, waits for the ones in hand, then closes. */
  close(): Promise<void>;
}

/** The one entry point to Pulsar: cached producers per topic, handler-driven subscriptions. */
export class PulsarClient {
  readonly logger: Logger;
  private readonly transport: Transport;
  private readonly producers = new Map<string, Promise<ProducerChannel>>();
  private readonly openProducers = new Set<ProducerChannel>();
  /** Users holding a topic's producer (holdProducer); the last release closes it. */
  private readonly holds = new Map<string, number>();
  /** Topics sent to while nobody held them: their producers stay for the client's lifetime. */
  private readonly unheld = new Set<string>();
  private readonly subscriptions = new Set<Subscription>();
  private closed = false;

  /** Asks the broker whether a silent request's service runs at all (RequestClient); undefined: never asked. */
  readonly serviceCheck: ServiceCheck | undefined;
  private readonly topicStats: TopicStatsReader | undefined;

  constructor(options: PulsarClientOptions) {
    this.logger = options.logger ?? pino({ level: "silent" });
    this.transport = options.transport ?? createTransport(options, this.logger);
    const checkAfterMs = options.serviceCheckAfterMs ?? DEFAULT_SERVICE_CHECK_MS;
    if (!options.transport && options.webServiceUrl && checkAfterMs > 0) {
      this.topicStats = new TopicStatsReader({ webServiceUrl: options.webServiceUrl, authToken: authTokenOf(options), tls: options.tls });
      this.serviceCheck = new ServiceCheck(this.topicStats, this.logger.child({ component: "service-check" }), checkAfterMs);
    } else {
      this.serviceCheck = options.serviceCheck;
    }
  }

  /** The largest message a send takes (payload + properties, see `messageSize()`); larger ones are refused. */
  get maxMessageSize(): number {
    return this.transport.maxMessageSize;
  }

  /** Topic and name of every open subscription (for the broker's per-subscription statistics). */
  get subscriptionNames(): Array<{ topic: string; subscription: string }> {
    return [...this.subscriptions].map(({ topic, subscription }) => ({ topic, subscription }));
  }

  /** True while every producer and subscription has a live session (for /readyz). */
  get connected(): boolean {
    return [...this.subscriptions].every((s) => s.connected) && [...this.openProducers].every((p) => p.connected);
  }

  /** One producer per topic for the client's lifetime; concurrent first calls share its creation. */
  producer(topic: string): Promise<ProducerChannel> {
    this.assertOpen();
    let producer = this.producers.get(topic);
    if (!producer) {
      producer = this.transport.createProducer(topic);
      producer.then(
        (p) => this.openProducers.add(p),
        () => this.producers.delete(topic),
      );
      this.producers.set(topic, producer);
    }
    return producer;
  }

  /**
   * Marks the topic's producer as used by someone who will let it go (a RequestClient): it is closed when
   * the last holder calls releaseProducer(), so clients for topics that come and go (tool services) leave
   * nothing open on the broker. Sends are unchanged; the producer is still opened on first send.
   */
  holdProducer(topic: string): void {
    this.holds.set(topic, (this.holds.get(topic) ?? 0) + 1);
  }

  /** Ends one holdProducer(); the last one closes the topic's producer unless others send to it unheld. */
  async releaseProducer(topic: string): Promise<void> {
    const holders = (this.holds.get(topic) ?? 0) - 1;
    if (holders > 0) {
      this.holds.set(topic, holders);
      return;
    }
    this.holds.delete(topic);
    const producer = this.producers.get(topic);
    if (this.unheld.has(topic) || !producer) return;
    this.producers.delete(topic);
    const opened = await producer.catch(() => undefined);
    if (!opened) return;
    this.openProducers.delete(opened);
    await opened.close();
  }

  /**
   * Sends one message; one over `maxMessageSize` is refused with MessageTooLargeError before anything is
   * sent. `key` is the message key: a Key_Shared subscription gives all messages of one key to one session.
   */
  async send(topic: string, payload: Buffer, properties: Properties = {}, key?: string): Promise<string> {
    this.assertFits(topic, payload, properties, undefined, key);
    if (!this.holds.has(topic)) this.unheld.add(topic);
    const producer = await this.producer(topic);
    return producer.send({ payload, properties, ...(key !== undefined ? { key } : {}) });
  }

  /** Throws MessageTooLargeError when the message is over the transport's limit; `what` names it in the error. */
  assertFits(topic: string, payload: Buffer, properties: Properties = {}, what?: string, key?: string): void {
    const size = messageSize({ payload, properties, ...(key !== undefined ? { key } : {}) });
    if (size > this.transport.maxMessageSize) throw new MessageTooLargeError(topic, size, this.transport.maxMessageSize, what);
  }

  sendJson(topic: string, body: unknown, properties: Properties = {}, key?: string): Promise<string> {
    return this.send(topic, encodeJson(body), properties, key);
  }

  /**
   * Subscribes and runs `handler` for each message, at most `concurrency` at once; acks after the
   * handler resolves, nacks when it throws. Resolves once the subscription exists on the broker.
   */
  async subscribe(options: HandlerOptions, handler: MessageHandler): Promise<Subscription> {
    this.assertOpen();
    const concurrency = options.concurrency ?? 16;
    const limiter = new ConcurrencyLimiter(concurrency);
    // Overload answers are small sends; this only bounds how many of them wait for the broker at once.
    const overflow = new ConcurrencyLimiter(Math.max(16, concurrency));
    const maxBacklog = options.onOverload ? (options.maxBacklog ?? Infinity) : Infinity;
    const logger = this.logger.child({ topic: options.topic, subscription: options.subscription });
    let stopping = false;
    // The broker never redelivers on a non-persistent topic, so acking after the handler buys nothing
    // there — and over the WebSocket API unacked messages hold the consumer's permits: once the proxy's
    // 1000 run out, the broker silently drops whatever arrives next. So those are acked on receipt.
    // (The binary transport returns permits as messages are handed over, acked or not.)
    const ackOnReceipt = parseTopic(options.topic).persistence === "non-persistent";

    const settle = async (message: IncomingMessage, channel: AckTarget, work: MessageHandler) => {
      try {
        await work(message);
        if (!ackOnReceipt) channel.ack(message.messageId);
      } catch (err) {
        if (ackOnReceipt) logger.error({ err, messageId: message.messageId }, "message handler failed");
        else {
          logger.error({ err, messageId: message.messageId }, "message handler failed; nacking");
          channel.nack(message.messageId);
        }
      }
    };
    const open = async (): Promise<ConsumerChannel> => {
      const channel = new AckTarget();
      const onMessage = (message: IncomingMessage) => {
        // While stopping, leave a persistent message unacked: the broker gives it to another consumer. A
        // non-persistent one is never given again, so it is handled like any other (see close()).
        if (stopping && !ackOnReceipt) return;
        if (ackOnReceipt) channel.ack(message.messageId);
        if (limiter.active + limiter.queued >= maxBacklog) void overflow.run(() => settle(message, channel, options.onOverload!));
        else void limiter.run(() => settle(message, channel, handler));
      };
      const consumer = await this.transport.subscribe(options, onMessage);
      channel.bind(consumer);
      return consumer;
    };
    const count = options.type === "Shared" || options.type === "Key_Shared" ? Math.max(1, options.consumers ?? 1) : 1;
    const consumers = await Promise.all(Array.from({ length: count }, open));

    const subscription: Subscription = {
      topic: options.topic,
      subscription: options.subscription,
      get connected() {
        return consumers.every((c) => c.connected);
      },
      get backlog() {
        return limiter.active + limiter.queued;
      },
      close: async () => {
        stopping = true;
        // Out of the set first: a subscription being closed must not make the client look disconnected.
        this.subscriptions.delete(subscription);
        if (ackOnReceipt) {
          // Non-persistent: what the broker dispatched here is lost unless handled here, and it dispatches
          // until it has closed the consumers. So close them first (what arrives meanwhile is handled), then
          // finish the work in hand; a sibling replica gets everything after.
          await Promise.all(consumers.map((c) => c.close()));
          await Promise.all([limiter.idle(), overflow.idle()]);
          return;
        }
        await Promise.all([limiter.idle(), overflow.idle()]);
        await Promise.all(consumers.map((c) => c.close()));
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  /** Finishes the messages in hand, then closes every subscription, producer and the transport. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    const producers = await Promise.allSettled(this.producers.values());
    await Promise.all(producers.map((p) => (p.status === "fulfilled" ? p.value.close() : undefined)));
    this.producers.clear();
    this.openProducers.clear();
    this.holds.clear();
    this.topicStats?.close();
    await this.transport.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new ClosedError("the Pulsar client is closed");
  }
}

/** Acks and nacks for one consumer session; those that come before the session is bound wait for it. */
class AckTarget {
  private channel: ConsumerChannel | undefined;
  private readonly early: Array<{ nack: boolean; messageId: string }> = [];

  bind(channel: ConsumerChannel): void {
    this.channel = channel;
    for (const { nack, messageId } of this.early.splice(0)) {
      if (nack) channel.nack(messageId);
      else channel.ack(messageId);
    }
  }

  ack(messageId: string): void {
    if (this.channel) this.channel.ack(messageId);
    else this.early.push({ nack: false, messageId });
  }

  nack(messageId: string): void {
    if (this.channel) this.channel.nack(messageId);
    else this.early.push({ nack: true, messageId });
  }
}
