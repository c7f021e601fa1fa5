import { parseTopic } from "@toolmesh/schema";
import type { IncomingMessage, OutgoingMessage, SubscribeOptions, SubscriptionType } from "../transport.js";

/** One consumer attached to a subscription: where its messages go and what it holds unacked. */
export interface MemoryConsumer {
  readonly name: string;
  deliver(message: IncomingMessage): void;
  /** Messages handed to this consumer and not yet acked, by message id. */
  readonly unacked: Map<string, StoredMessage>;
}

interface StoredMessage {
  readonly id: string;
  readonly message: OutgoingMessage;
  readonly publishTime: string;
  redeliveryCount: number;
}

/**
 * A subscription: its consumers and, on a persistent topic, the messages waiting for one. The
 * subscription type decides who gets a message: Exclusive and Failover give everything to one active
 * consumer, Shared deals round robin, Key_Shared keeps one key on one consumer.
 */
class MemorySubscription {
  readonly consumers: MemoryConsumer[] = [];
  /** Messages no consumer could take yet (persistent topics only; non-persistent ones drop them). */
  readonly backlog: StoredMessage[] = [];
  private next = 0;

  constructor(
    readonly topic: string,
    readonly name: string,
    readonly type: SubscriptionType,
    readonly persistent: boolean,
  ) {}

  attach(consumer: MemoryConsumer): void {
    if (this.type === "Exclusive" && this.consumers.length > 0) {
      throw new Error(`Exclusive subscription '${this.name}' on ${this.topic} already has a consumer`);
    }
    this.consumers.push(consumer);
    this.drain();
  }

  /** Takes a consumer away; what it held unacked goes to the others (or waits, if persistent). */
  detach(consumer: MemoryConsumer): void {
    const index = this.consumers.indexOf(consumer);
    if (index >= 0) this.consumers.splice(index, 1);
    const held = [...consumer.unacked.values()];
    consumer.unacked.clear();
    for (const stored of held) this.redeliver(stored);
  }

  offer(stored: StoredMessage): void {
    const consumer = this.pick(stored.message.key);
    if (consumer) this.hand(consumer, stored);
    else if (this.persistent) this.backlog.push(stored);
    // Non-persistent with no consumer: dropped, as the broker does.
  }

  redeliver(stored: StoredMessage): void {
    stored.redeliveryCount += 1;
    this.offer(stored);
  }

  private drain(): void {
    for (const stored of this.backlog.splice(0)) this.offer(stored);
  }

  private pick(key: string | undefined): MemoryConsumer | undefined {
    if (this.consumers.length === 0) return undefined;
    switch (this.type) {
      case "Exclusive":
      case "Failover":
        return this.consumers[0];
      case "Key_Shared":
        return this.consumers[hashKey(key ?? "") % this.consumers.length];
      case "Shared":
        return this.consumers[this.next++ % this.consumers.length];
    }
  }

  private hand(consumer: MemoryConsumer, stored: StoredMessage): void {
    consumer.unacked.set(stored.id, stored);
    consumer.deliver({
      topic: this.topic,
      messageId: stored.id,
      payload: Buffer.from(stored.message.payload),
      properties: { ...stored.message.properties },
      publishTime: stored.publishTime,
      redeliveryCount: stored.redeliveryCount,
      ...(stored.message.key !== undefined ? { key: stored.message.key } : {}),
    });
  }
}

function hashKey(key: string): number {
  let hash = 0;
  for (let i = 0; i < key.length; i++) hash = (hash * 31 + key.charCodeAt(i)) >>> 0;
  return hash;
}

interface MemoryTopic {
  readonly persistent: boolean;
  readonly subscriptions: Map<string, MemorySubscription>;
  /** Every message ever published on a persistent topic, for subscriptions that start at Earliest. */
  readonly log: StoredMessage[];
}

/**
 * Pulsar's delivery semantics in one process, for the unit tier: topics, subscriptions of every type,
 * acks, negative acks with redelivery, persistent backlogs and non-persistent drops. Several
 * MemoryTransports attached to one MemoryBroker behave like several processes on one broker.
 */
export class MemoryBroker {
  private readonly topics = new Map<string, MemoryTopic>();
  private sequence = 0;

  publish(topicName: string, message: OutgoingMessage): string {
    const topic = this.topic(topicName);
    const stored: StoredMessage = {
      id: `${++this.sequence}:0:-1`,
      message: {
        payload: Buffer.from(message.payload),
        properties: { ...message.properties },
        ...(message.key !== undefined ? { key: message.key } : {}),
      },
      publishTime: new Date().toISOString(),
      redeliveryCount: 0,
    };
    if (topic.persistent) topic.log.push(stored);
    for (const subscription of topic.subscriptions.values()) subscription.offer({ ...stored });
    return stored.id;
  }

  /** Attaches a consumer, creating the subscription (and, from Earliest, its backlog) on first use. */
  subscribe(options: SubscribeOptions, consumer: MemoryConsumer): MemorySubscription {
    const topic = this.topic(options.topic);
    let subscription = topic.subscriptions.get(options.subscription);
    if (subscription && subscription.type !== options.type) {
      throw new Error(`subscription '${options.subscription}' on ${options.topic} is ${subscription.type}, not ${options.type}`);
    }
    if (!subscription) {
      subscription = new MemorySubscription(options.topic, options.subscription, options.type, topic.persistent);
      topic.subscriptions.set(options.subscription, subscription);
      if (topic.persistent && options.initialPosition === "Earliest") {
        for (const stored of topic.log) subscription.backlog.push({ ...stored });
      }
    }
    subscription.attach(consumer);
    return subscription;
  }

  /** A consumer left: a non-persistent subscription with nobody left on it is gone, as on the broker. */
  unsubscribe(subscription: MemorySubscription, consumer: MemoryConsumer): void {
    subscription.detach(consumer);
    const topic = this.topics.get(subscription.topic);
    if (topic && !topic.persistent && subscription.consumers.length === 0) topic.subscriptions.delete(subscription.name);
  }

  /** Producers and consumers per topic, like the admin API's topic stats (for leak checks in tests). */
  consumerCount(topicName: string): number {
    const topic = this.topics.get(topicName);
    return topic ? [...topic.subscriptions.values()].reduce((n, s) => n + s.consumers.length, 0) : 0;
  }

  private topic(name: string): MemoryTopic {
    let topic = this.topics.get(name);
    if (!topic) {
      topic = { persistent: parseTopic(name).persistence === "persistent", subscriptions: new Map(), log: [] };
      this.topics.set(name, topic);
    }
    return topic;
  }
}

export type { MemorySubscription };
