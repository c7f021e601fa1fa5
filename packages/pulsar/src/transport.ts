/**
 * What the rest of the client layer needs from a connection to Pulsar: the binary protocol (binary/,
 * the default) or the broker's WebSocket API (ws/).
 */
export type Properties = Record<string, string>;

/**
 * Where a transport gets the token it authenticates with: asked at every (re)connection and broker
 * challenge. A challenge passes the token the broker no longer accepts (`rejected`): a source that caches
 * tokens must then get a new one, whatever its own clock says.
 */
export type AuthToken = (hint?: AuthTokenHint) => Promise<string>;
export interface AuthTokenHint {
  rejected?: string;
}

/**
 * TLS towards the broker: the CA that signed its certificate (a private CA), a client certificate, and
 * whether to verify at all. Node's own TLS options, used by both transports and the admin calls.
 */
export interface TlsSettings {
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
  rejectUnauthorized?: boolean;
  servername?: string;
}

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
  /**
   * Binary transport, non-persistent topic: how long a closed consumer still hands over messages (default 0).
   * The broker may write one just after confirming the close (its dispatcher picked the consumer on another
   * thread just before the close removed it), and nothing would ever give it to anyone else: request
   * servers linger so that such a request is answered, not lost.
   */
  closeLingerMs?: number;
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
  /**
   * The largest message a send may carry, in bytes as `messageSize()` counts them. Larger ones are refused
   * before they touch the connection. The broker's limit also covers the metadata it adds, so a transport
   * keeps headroom for it below the broker's figure.
   */
  readonly maxMessageSize: number;
  /** Opens a producer; resolves once connected the first time (it reconnects by itself afterwards). */
  createProducer(topic: string): Promise<ProducerChannel>;
  /** Subscribes; resolves once the subscription exists on the broker, so sends after it are not lost. */
  subscribe(options: SubscribeOptions, onMessage: (message: IncomingMessage) => void): Promise<ConsumerChannel>;
  close(): Promise<void>;
}

/** What counts against `Transport.maxMessageSize`: the payload, the properties and the key, in bytes. */
export function messageSize(message: OutgoingMessage): number {
  let size = message.payload.length;
  for (const [name, value] of Object.entries(message.properties)) size += Buffer.byteLength(name) + Buffer.byteLength(value);
  if (message.key !== undefined) size += Buffer.byteLength(message.key);
  return size;
}
