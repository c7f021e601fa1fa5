import type { Logger } from "pino";
import type {
  AuthToken,
  ConsumerChannel,
  IncomingMessage,
  ProducerChannel,
  SubscribeOptions,
  TlsSettings,
  Transport,
} from "../transport.js";
import { WsConsumer } from "./consumer.js";
import { DEFAULT_BROKER_MAX_MESSAGE_SIZE, DEFAULT_MAX_FRAME_SIZE, webSocketMessageLimit } from "./limits.js";
import { WsProducer } from "./producer.js";

export interface WebSocketTransportOptions {
  /** The broker's web service, e.g. `http://127.0.0.1:8080` (ws:// and http:// both accepted; https:// and wss:// mean TLS). */
  webServiceUrl: string;
  logger: Logger;
  sendTimeoutMs?: number;
  pingIntervalMs?: number;
  /** The broker's `maxMessageSize` (default 6 MiB, as toolmesh's deployments set it; Pulsar's is 5 MiB). */
  brokerMaxMessageSize?: number;
  /** The broker's `webSocketMaxTextFrameSize` (default 10 MiB, as toolmesh's deployments set it; Pulsar's is 1 MiB). */
  maxFrameSize?: number;
  /** Sent as `Authorization: Bearer` when each session opens (token authentication on the broker). */
  authToken?: AuthToken;
  /** For a web service on TLS (https://): the CA that signed the broker's certificate, a client certificate. */
  tls?: TlsSettings;
}

/** Pulsar's WebSocket API (`/ws/v2/...`): JSON frames, base64 payloads, one session per producer/consumer. */
export class WebSocketTransport implements Transport {
  readonly maxMessageSize: number;
  private readonly maxFrameSize: number;
  private readonly baseUrl: string;
  private readonly channels = new Set<{ close(): Promise<void> }>();

  constructor(private readonly options: WebSocketTransportOptions) {
    this.baseUrl = options.webServiceUrl.replace(/^http/, "ws").replace(/\/+$/, "");
    this.maxFrameSize = options.maxFrameSize ?? DEFAULT_MAX_FRAME_SIZE;
    this.maxMessageSize = webSocketMessageLimit(options.brokerMaxMessageSize ?? DEFAULT_BROKER_MAX_MESSAGE_SIZE, this.maxFrameSize);
  }

  async createProducer(topic: string): Promise<ProducerChannel> {
    const producer = new WsProducer({
      baseUrl: this.baseUrl,
      topic,
      logger: this.options.logger,
      sendTimeoutMs: this.options.sendTimeoutMs ?? 30_000,
      maxFrameSize: this.maxFrameSize,
      pingIntervalMs: this.options.pingIntervalMs,
      authToken: this.options.authToken,
      tls: this.options.tls,
    });
    return this.track(producer, () => producer.start());
  }

  async subscribe(options: SubscribeOptions, onMessage: (message: IncomingMessage) => void): Promise<ConsumerChannel> {
    const consumer = new WsConsumer(
      {
        ...options,
        baseUrl: this.baseUrl,
        logger: this.options.logger,
        pingIntervalMs: this.options.pingIntervalMs,
        authToken: this.options.authToken,
        tls: this.options.tls,
      },
      onMessage,
    );
    return this.track(consumer, () => consumer.start());
  }

  async close(): Promise<void> {
    await Promise.all([...this.channels].map((channel) => channel.close()));
    this.channels.clear();
  }

  /** Keeps the channel for close(), until it is closed by itself (clients of short-lived topics come and go). */
  private async track<T extends { close(): Promise<void> }>(channel: T, start: () => Promise<void>): Promise<T> {
    this.channels.add(channel);
    const close = channel.close.bind(channel);
    channel.close = () => {
      this.channels.delete(channel);
      return close();
    };
    try {
      await start();
      return channel;
    } catch (err) {
      this.channels.delete(channel);
      await channel.close();
      throw err;
    }
  }
}
