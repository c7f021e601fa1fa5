import { ClosedError } from "../errors.js";
import type { ConsumerChannel, IncomingMessage, OutgoingMessage, ProducerChannel, SubscribeOptions, Transport } from "../transport.js";
import { MemoryBroker, type MemoryConsumer, type MemorySubscription } from "./broker.js";

/** The broker's default maxMessageSize (5 MiB), so size checks behave as they would on a real broker. */
const DEFAULT_MAX_MESSAGE_SIZE = 5 * 1024 * 1024;

export interface MemoryTransportOptions {
  /** Share one broker between transports to model several processes; a fresh one by default. */
  broker?: MemoryBroker;
  maxMessageSize?: number;
}

/**
 * A Transport with no broker behind it, for unit tests of handlers and pure logic: same delivery
 * semantics as Pulsar (see MemoryBroker), messages handed over asynchronously as a network would.
 * Integration and end-to-end tests use a real broker; this is the unit tier only.
 */
export class MemoryTransport implements Transport {
  readonly broker: MemoryBroker;
  readonly maxMessageSize: number;
  private readonly channels = new Set<{ close(): Promise<void> }>();
  private closed = false;

  constructor(options: MemoryTransportOptions = {}) {
    this.broker = options.broker ?? new MemoryBroker();
    this.maxMessageSize = options.maxMessageSize ?? DEFAULT_MAX_MESSAGE_SIZE;
  }

  createProducer(topic: string): Promise<ProducerChannel> {
    this.assertOpen();
    let open = true;
    const producer: ProducerChannel = {
      topic,
      get connected() {
        return open;
      },
      send: async (message: OutgoingMessage) => {
        if (!open) throw new ClosedError(`producer for ${topic} is closed`);
        return this.broker.publish(topic, message);
      },
      close: async () => {
        open = false;
        this.channels.delete(producer);
      },
    };
    this.channels.add(producer);
    return Promise.resolve(producer);
  }

  subscribe(options: SubscribeOptions, onMessage: (message: IncomingMessage) => void): Promise<ConsumerChannel> {
    this.assertOpen();
    let open = true;
    const consumer: MemoryConsumer = {
      name: options.consumerName ?? options.subscription,
      unacked: new Map(),
      // Handed over on a later turn, as from a socket: a handler never runs inside send().
      deliver: (message) => setImmediate(() => open && onMessage(message)),
    };
    const subscription: MemorySubscription = this.broker.subscribe(options, consumer);
    const nackDelayMs = options.negativeAckRedeliveryDelayMs ?? 1_000;
    const timers = new Set<NodeJS.Timeout>();
    const channel: ConsumerChannel = {
      topic: options.topic,
      subscription: options.subscription,
      get connected() {
        return open;
      },
      ack: (messageId) => void consumer.unacked.delete(messageId),
      nack: (messageId) => {
        const stored = consumer.unacked.get(messageId);
        if (!stored) return;
        consumer.unacked.delete(messageId);
        const timer = setTimeout(() => {
          timers.delete(timer);
          subscription.redeliver(stored);
        }, nackDelayMs);
        timers.add(timer);
      },
      close: async () => {
        if (!open) return;
        open = false;
        for (const timer of timers) clearTimeout(timer);
        this.broker.unsubscribe(subscription, consumer);
        this.channels.delete(channel);
      },
    };
    this.channels.add(channel);
    return Promise.resolve(channel);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.channels].map((c) => c.close()));
  }

  private assertOpen(): void {
    if (this.closed) throw new ClosedError("the memory transport is closed");
  }
}
