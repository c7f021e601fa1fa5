/**
 * What the rest of the client layer needs from a connection to Pulsar: the binary protocol (binary/,
 * the default) or the broker's WebSocket API (ws/).
 */
export type Properties = Record<string, string>;

export interface OutgoingMessage {
  payload: Buffer;
  properties: Properties;
  key?: string;
}

export interface IncomingMessage {
  topic: string;
  messageId: string;
  payload: Buffer;
  properties: Properties;
  publishTime: string;
  redeliveryCount: number;
  key?: string;
}

export type SubscriptionType = "Exclusive" | "Shared" | "Failover" | "Key_Shared";

export interface SubscribeOptions {
  topic: string;
  subscription: string;
  type: SubscriptionType;
  /** Messages the broker may push ahead of the handler (binary: default 10 000; WebSocket: capped at 1000). */
  receiverQueueSize?: number;
  consumerName?: string;
  /** How long the broker waits before redelivering a nacked message (default 1000 ms). */
  negativeAckRedeliveryDelayMs?: number;
  /** Where a new subscription starts on a persistent topic (default Latest). */
  initialPosition?: "Earliest" | "Latest";
}

export interface ProducerChannel {
  readonly topic: string;
  readonly connected: boolean;
  /** Resolves with the message id once the broker has the message. */
  send(message: OutgoingMessage): Promise<string>;
  close(): Promise<void>;
}

export interface ConsumerChannel {
  readonly topic: string;
  readonly subscription: string;
  readonly connected: boolean;
  ack(messageId: string): void;
  nack(messageId: string): void;
  close(): Promise<void>;
}

export interface Transport {
  /** The largest message (payload plus metadata, bytes) the broker takes; larger sends fail before sending. */
  readonly maxMessageSize: number;
  /** Opens a producer; resolves once connected the first time (it reconnects by itself afterwards). */
  createProducer(topic: string): Promise<ProducerChannel>;
  /** Subscribes; resolves once the subscription exists on the broker, so sends after it are not lost. */
  subscribe(options: SubscribeOptions, onMessage: (message: IncomingMessage) => void): Promise<ConsumerChannel>;
  close(): Promise<void>;
}
