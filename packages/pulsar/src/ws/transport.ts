import type { Logger } from "pino";
import type { ConsumerChannel, IncomingMessage, ProducerChannel, SubscribeOptions, Transport } from "../transport.js";
import { WsConsumer } from "./consumer.js";
import { WsProducer } from "./producer.js";

export interface WebSocketTransportOptions {
  /** The broker's web service, e.g. `http://127.0.0.1:8080` (ws:// and http:// both accepted). */
  webServiceUrl: string;
  logger: Logger;
  sendTimeoutMs?: number;
  pingIntervalMs?: number;
  /** The broker's maxMessageSize, which the WebSocket API does not announce (default 5 MiB, Pulsar's default). */
  maxMessageSize?: number;
}

/** Pulsar's WebSocket API (`/ws/v2/...`): JSON frames, base64 payloads, one session per producer/consumer. */
export class WebSocketTransport implements Transport {
  private readonly baseUrl: string;
  private readonly channels = new Set<{ close(): Promise<void> }>();
  readonly maxMessageSize: number;

  constructor(private readonly options: WebSocketTransportOptions) {
    this.maxMessageSize = options.maxMessageSize ?? 5 * 1024 * 1024;
    this.baseUrl = options.webServiceUrl.replace(/^http/, "ws").replace(/\/+$/, "");
  }

  async createProducer(topic: string): Promise<ProducerChannel> {
    const producer = new WsProducer({
      baseUrl: this.baseUrl,
      topic,
      logger: this.options.logger,
      sendTimeoutMs: this.options.sendTimeoutMs ?? 30_000,
      pingIntervalMs: this.options.pingIntervalMs,
    });
    return this.track(producer, () => producer.start());
  }

  async subscribe(options: SubscribeOptions, onMessage: (message: IncomingMessage) => void): Promise<ConsumerChannel> {
    const consumer = new WsConsumer(
      { ...options, baseUrl: this.baseUrl, logger: this.options.logger, pingIntervalMs: this.options.pingIntervalMs },
      onMessage,
    );
    return this.track(consumer, () => consumer.start());
  }

  async close(): Promise<void> {
    await Promise.all([...this.channels].map((channel) => channel.close()));
    this.channels.clear();
  }

  private async track<T extends { close(): Promise<void> }>(channel: T, start: () => Promise<void>): Promise<T> {
    this.channels.add(channel);
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
