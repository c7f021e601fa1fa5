import type { Logger } from "pino";
import { ClosedError, MessageTooLargeError, SendError } from "../errors.js";
import type { AuthToken, OutgoingMessage, ProducerChannel, TlsSettings } from "../transport.js";
import { ProducerAckFrame, parseFrame } from "./frames.js";
import { ReconnectingLink } from "./link.js";
import { producerUrl } from "./urls.js";

interface PendingSend {
  frame: string;
  resolve: (messageId: string) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
  written: boolean;
}

export interface WsProducerOptions {
  baseUrl: string;
  topic: string;
  logger: Logger;
  /** How long a message may wait for the broker's confirmation, across reconnects. */
  sendTimeoutMs: number;
  /** The broker's `webSocketMaxTextFrameSize`: a longer frame would close the session. */
  maxFrameSize: number;
  pingIntervalMs?: number;
  authToken?: AuthToken;
  tls?: TlsSettings;
}

/**
 * A producer on one topic. Messages not yet confirmed when the session drops are written again on the
 * next session (at least once); request ids let receivers drop the rare duplicate.
 */
export class WsProducer implements ProducerChannel {
  readonly topic: string;
  private readonly link: ReconnectingLink;
  private readonly pending = new Map<string, PendingSend>();
  private nextContext = 0;
  private closed = false;

  constructor(private readonly options: WsProducerOptions) {
    this.topic = options.topic;
    this.link = new ReconnectingLink({
      url: producerUrl(options.baseUrl, options.topic),
      label: `producer ${options.topic}`,
      logger: options.logger,
      pingIntervalMs: options.pingIntervalMs,
      authToken: options.authToken,
      tls: options.tls,
      onFrame: (frame) => this.onFrame(frame),
      onOpen: () => this.flush(),
      onDown: () => {
        for (const send of this.pending.values()) send.written = false;
      },
    });
  }

  get connected(): boolean {
    return this.link.connected;
  }

  start(): Promise<void> {
    return this.link.start();
  }

  send(message: OutgoingMessage): Promise<string> {
    if (this.closed) return Promise.reject(new ClosedError(`producer ${this.topic} is closed`));
    const context = String(this.nextContext++);
    const frame = JSON.stringify({
      payload: message.payload.toString("base64"),
      properties: message.properties,
      context,
      ...(message.key !== undefined ? { key: message.key } : {}),
    });
    // The transport's size limit leaves room for the frame's JSON; this catches what it cannot foresee
    // (properties full of escaped characters) before the frame reaches the session.
    const frameSize = Buffer.byteLength(frame);
    if (frameSize > this.options.maxFrameSize) {
      return Promise.reject(new MessageTooLargeError(this.topic, frameSize, this.options.maxFrameSize, "the WebSocket frame of a message"));
    }
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(context);
        reject(new SendError(`broker did not confirm a message on ${this.topic} within ${this.options.sendTimeoutMs} ms`));
      }, this.options.sendTimeoutMs);
      const send: PendingSend = { frame, resolve, reject, timer, written: false };
      this.pending.set(context, send);
      send.written = this.link.send(frame);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.link.close();
    for (const [context, send] of this.pending) {
      clearTimeout(send.timer);
      send.reject(new ClosedError(`producer ${this.topic} closed before the broker confirmed the message`));
      this.pending.delete(context);
    }
  }

  private flush(): void {
    for (const send of this.pending.values()) {
      if (!send.written) send.written = this.link.send(send.frame);
    }
  }

  private onFrame(frame: string): void {
    const ack = parseFrame(ProducerAckFrame, frame);
    if (!ack?.context) {
      this.options.logger.warn({ topic: this.topic, frame: frame.slice(0, 200) }, "unexpected producer frame");
      return;
    }
    const send = this.pending.get(ack.context);
    if (!send) return;
    this.pending.delete(ack.context);
    clearTimeout(send.timer);
    if (ack.result === "ok") send.resolve(ack.messageId ?? "");
    else send.reject(new SendError(`broker refused a message on ${this.topic}: ${ack.result} ${ack.errorMsg ?? ""}`.trim()));
  }
}
