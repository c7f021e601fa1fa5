import type { Logger } from "pino";
import type { AuthToken, ConsumerChannel, IncomingMessage, SubscribeOptions, TlsSettings } from "../transport.js";
import { ConsumerMessageFrame, parseFrame } from "./frames.js";
import { ReconnectingLink } from "./link.js";
import { consumerUrl } from "./urls.js";

export interface WsConsumerOptions extends SubscribeOptions {
  baseUrl: string;
  logger: Logger;
  pingIntervalMs?: number;
  authToken?: AuthToken;
  tls?: TlsSettings;
}

/**
 * A subscription on one topic. The broker pushes up to receiverQueueSize messages and then waits for
 * acks, so every message must be acked or nacked. After a reconnect the subscription is made again.
 */
export class WsConsumer implements ConsumerChannel {
  readonly topic: string;
  readonly subscription: string;
  private readonly link: ReconnectingLink;

  constructor(
    private readonly options: WsConsumerOptions,
    private readonly onMessage: (message: IncomingMessage) => void,
  ) {
    this.topic = options.topic;
    this.subscription = options.subscription;
    this.link = new ReconnectingLink({
      url: consumerUrl(options.baseUrl, options),
      label: `consumer ${options.topic} [${options.subscription}]`,
      logger: options.logger,
      pingIntervalMs: options.pingIntervalMs,
      authToken: options.authToken,
      tls: options.tls,
      onFrame: (frame) => this.onFrame(frame),
    });
  }

  get connected(): boolean {
    return this.link.connected;
  }

  start(): Promise<void> {
    return this.link.start();
  }

  ack(messageId: string): void {
    // Lost if the session dropped meanwhile: the broker then redelivers (persistent topics) as it should.
    this.link.send(JSON.stringify({ messageId }));
  }

  nack(messageId: string): void {
    this.link.send(JSON.stringify({ type: "negativeAcknowledge", messageId }));
  }

  close(): Promise<void> {
    return this.link.close();
  }

  private onFrame(frame: string): void {
    const message = parseFrame(ConsumerMessageFrame, frame);
    if (!message) {
      this.options.logger.debug({ topic: this.topic, frame: frame.slice(0, 200) }, "ignored consumer frame");
      return;
    }
    this.onMessage({
      topic: this.topic,
      messageId: message.messageId,
      payload: Buffer.from(message.payload, "base64"),
      properties: message.properties,
      publishTime: message.publishTime,
      redeliveryCount: message.redeliveryCount,
      ...(message.key !== undefined ? { key: message.key } : {}),
    });
  }
}
