import pino, { type Logger } from "pino";
import { parseTopic } from "@toolmesh/schema";
import { ClosedError } from "./errors.js";
import { encodeJson } from "./json.js";
import { ConcurrencyLimiter } from "./limiter.js";
import type {
  ConsumerChannel,
  IncomingMessage,
  ProducerChannel,
  Properties,
  SubscribeOptions,
  Transport,
} from "./transport.js";
import { createTransport, type TransportSettings } from "./transport-factory.js";

export interface PulsarClientOptions extends TransportSettings {
  logger?: Logger;
  /** Replaces the transport the settings would select (tests of pure logic use an in-memory one). */
  transport?: Transport;
}

export interface HandlerOptions extends SubscribeOptions {
  /** Messages handled at once by this consumer (default 16). */
  concurrency?: number;
}

/** The handler's outcome decides the ack: resolve = ack, throw = nack (the broker redelivers). */
export type MessageHandler = (message: IncomingMessage) => Promise<void>;

export interface Subscription {
  readonly topic: string;
  readonly subscription: string;
  readonly connected: boolean;
  /** Stops taking messages, waits for the ones in hand, then closes. */
  close(): Promise<void>;
}

/** The one entry point to Pulsar: cached producers per topic, handler-driven subscriptions. */
export class PulsarClient {
  readonly logger: Logger;
  private readonly transport: Transport;
  private readonly producers = new Map<string, Promise<ProducerChannel>>();
  private readonly openProducers = new Set<ProducerChannel>();
  private readonly subscriptions = new Set<Subscription>();
  private closed = false;

  constructor(options: PulsarClientOptions) {
    this.logger = options.logger ?? pino({ level: "silent" });
    this.transport = options.transport ?? createTransport(options, this.logger);
  }

  /** The largest message the broker takes (bytes, payload plus metadata). */
  get maxMessageSize(): number {
    return this.transport.maxMessageSize;
  }

  /** True while every producer and subscription has a live session (for /readyz). */
  get connected(): boolean {
    return (
      [...this.subscriptions].every((s) => s.connected) && [...this.openProducers].every((p) => p.connected)
    );
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

  async send(topic: string, payload: Buffer, properties: Properties = {}): Promise<string> {
    const producer = await this.producer(topic);
    return producer.send({ payload, properties });
  }

  sendJson(topic: string, body: unknown, properties: Properties = {}): Promise<string> {
    return this.send(topic, encodeJson(body), properties);
  }

  /**
   * Subscribes and runs `handler` for each message, at most `concurrency` at once; acks after the
   * handler resolves, nacks when it throws. Resolves once the subscription exists on the broker.
   */
  async subscribe(options: HandlerOptions, handler: MessageHandler): Promise<Subscription> {
    this.assertOpen();
    const limiter = new ConcurrencyLimiter(options.concurrency ?? 16);
    const logger = this.logger.child({ topic: options.topic, subscription: options.subscription });
    let stopping = false;
    // The broker never redelivers on a non-persistent topic, so acking after the handler buys nothing
    // there — and over the WebSocket API unacked messages hold the consumer's permits: once the proxy's
    // 1000 run out, the broker silently drops whatever arrives next. So those are acked on receipt.
    // (The binary transport returns permits as messages are handed over, acked or not.)
    const ackOnReceipt = parseTopic(options.topic).persistence === "non-persistent";
    // Set once subscribed; a message acked before that waits in `early`.
    const bound: { channel?: ConsumerChannel } = {};
    const early: string[] = [];
    const ack = (messageId: string) => (bound.channel ? bound.channel.ack(messageId) : early.push(messageId));

    const onMessage = (message: IncomingMessage) => {
      // While stopping, leave the message unacked: the broker gives it to another consumer.
      if (stopping) return;
      if (ackOnReceipt) ack(message.messageId);
      void limiter.run(async () => {
        try {
          await handler(message);
          if (!ackOnReceipt) ack(message.messageId);
        } catch (err) {
          if (ackOnReceipt) logger.error({ err, messageId: message.messageId }, "message handler failed");
          else {
            logger.error({ err, messageId: message.messageId }, "message handler failed; nacking");
            bound.channel?.nack(message.messageId);
          }
        }
      });
    };
    const consumer = await this.transport.subscribe(options, onMessage);
    bound.channel = consumer;
    for (const messageId of early.splice(0)) consumer.ack(messageId);

    const subscription: Subscription = {
      topic: options.topic,
      subscription: options.subscription,
      get connected() {
        return consumer.connected;
      },
      close: async () => {
        stopping = true;
        await limiter.idle();
        await consumer.close();
        this.subscriptions.delete(subscription);
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
    await this.transport.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new ClosedError("the Pulsar client is closed");
  }
}
