import { ClosedError, SendError } from "../errors.js";
import type { OutgoingMessage, ProducerChannel } from "../transport.js";
import type { BrokerError } from "./broker-error.js";
import type { BaseCommandData } from "./commands.js";
import type { BrokerConnection, ProducerListener } from "./connection.js";
import { encodeMetadata, encodePayloadCommand } from "./frame-codec.js";
import { formatMessageId, fromMessageIdData } from "./message-id.js";
import { CommandType } from "./pulsar-api.js";
import { type HandleContext, ReconnectingHandle } from "./reconnecting-handle.js";

interface PendingSend {
  sequenceId: number;
  metadata: Uint8Array;
  payload: Buffer;
  resolve: (messageId: string) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

export interface ProducerSettings {
  sendTimeoutMs: number;
  /** Unconfirmed messages kept for resending; a send beyond it fails at once. */
  maxPendingMessages: number;
  /** The partition this producer writes (-1 for a topic that is not partitioned), for message ids. */
  partition: number;
  /** The broker's message size limit as currently known. */
  maxMessageSize: () => number;
}

/**
 * A producer on one topic or partition. Every message gets the next sequence id and waits in `pending`
 * until its SEND_RECEIPT; after a reconnect everything still pending is sent again in order (at least
 * once). A message not confirmed within sendTimeoutMs fails with an error naming the topic.
 */
export class BinaryProducer extends ReconnectingHandle implements ProducerChannel, ProducerListener {
  private readonly pending = new Map<number, PendingSend>();
  private producerId = -1;
  private producerName: string | undefined;
  private nextSequenceId = 0;

  constructor(
    context: HandleContext,
    topic: string,
    private readonly settings: ProducerSettings,
  ) {
    super(context, topic, `producer ${topic}`);
  }

  send(message: OutgoingMessage): Promise<string> {
    if (this.closed) return Promise.reject(new ClosedError(`producer ${this.topic} is closed`));
    if (this.pending.size >= this.settings.maxPendingMessages) {
      return Promise.reject(
        new SendError(`producer ${this.topic} has ${this.pending.size} messages awaiting the broker's confirmation; not sent`),
      );
    }
    const sequenceId = this.nextSequenceId++;
    const metadata = encodeMetadata({
      producer_name: this.producerName ?? "",
      sequence_id: sequenceId,
      publish_time: Date.now(),
      properties: Object.entries(message.properties).map(([key, value]) => ({ key, value })),
      uncompressed_size: message.payload.length,
      ...(message.key !== undefined ? { partition_key: message.key } : {}),
    });
    // The broker's limit covers metadata and payload (its own check: "sends a message with N bytes that exceeds M").
    const size = 4 + metadata.length + message.payload.length;
    const limit = this.settings.maxMessageSize();
    if (size > limit) {
      this.nextSequenceId--;
      return Promise.reject(
        new SendError(
          `message of ${message.payload.length} bytes on ${this.topic} (${size} with its metadata) exceeds the broker's limit of ${limit} bytes; not sent`,
        ),
      );
    }
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(sequenceId);
        reject(new SendError(`broker did not confirm a message on ${this.topic} within ${this.settings.sendTimeoutMs} ms`));
      }, this.settings.sendTimeoutMs);
      const send: PendingSend = { sequenceId, metadata, payload: message.payload, resolve, reject, timer };
      this.pending.set(sequenceId, send);
      if (this.connected) this.write(send);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    const id = this.producerId;
    await this.closeOnBroker(
      (request_id) => ({ type: CommandType.CLOSE_PRODUCER, close_producer: { producer_id: id, request_id } }),
      (connection) => connection.removeProducer(id),
    );
    for (const send of this.pending.values()) {
      clearTimeout(send.timer);
      send.reject(new ClosedError(`producer ${this.topic} closed before the broker confirmed the message`));
    }
    this.pending.clear();
  }

  protected async attach(connection: BrokerConnection): Promise<void> {
    const id = connection.newProducerId();
    this.producerId = id;
    connection.addProducer(id, this);
    try {
      const answer = await connection.request(`${this.label}`, (request_id) => ({
        type: CommandType.PRODUCER,
        producer: { topic: this.topic, producer_id: id, request_id, ...(this.producerName ? { producer_name: this.producerName } : {}) },
      }));
      this.producerName = answer.producer_success!.producer_name;
    } catch (err) {
      connection.removeProducer(id);
      throw err;
    }
  }

  protected override onReady(): void {
    for (const send of this.pending.values()) this.write(send);
  }

  protected detached(): void {
    this.producerId = -1;
  }

  onReceipt(sequenceId: number, receipt: NonNullable<BaseCommandData["send_receipt"]>): void {
    const send = this.pending.get(sequenceId);
    if (!send) return;
    this.pending.delete(sequenceId);
    clearTimeout(send.timer);
    const id = receipt.message_id;
    send.resolve(id ? formatMessageId(fromMessageIdData(id, this.settings.partition)) : "");
  }

  /** The broker could not store a message (often a topic being moved): reconnect and resend it. */
  onSendError(sequenceId: number, error: BrokerError): void {
    this.context.logger.warn({ handle: this.label, sequenceId, err: error.message }, "broker refused a message; reconnecting to resend");
    this.connection?.removeProducer(this.producerId);
    this.lost(error.message);
  }

  onClosedByBroker(): void {
    this.lost("the broker closed the producer");
  }

  onConnectionLost(): void {
    this.lost("the connection dropped");
  }

  private write(send: PendingSend): void {
    this.connection?.write(
      encodePayloadCommand(
        { type: CommandType.SEND, send: { producer_id: this.producerId, sequence_id: send.sequenceId, num_messages: 1 } },
        send.metadata,
        send.payload,
      ),
    );
  }
}
