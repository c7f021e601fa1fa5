import { setTimeout as sleep } from "node:timers/promises";
import type { ConsumerChannel, IncomingMessage, SubscribeOptions } from "../transport.js";
import { type BatchedMessage, decodeKey, unpackBatch } from "./batch.js";
import { ChunkedMessages, type DroppedChunks } from "./chunked-messages.js";
import type { ConsumerListener, BrokerConnection } from "./connection.js";
import { decompress } from "./compression.js";
import { encodeCommand, type Frame } from "./frame-codec.js";
import { entryKey, formatMessageId, fromMessageIdData, type MessageId, parseMessageId, toEntryIdData } from "./message-id.js";
import { NegativeAcks } from "./negative-acks.js";
import { CommandType } from "./pulsar-api.js";
import { type HandleContext, ReconnectingHandle } from "./reconnecting-handle.js";

const SUB_TYPES = { Exclusive: 0, Shared: 1, Failover: 2, Key_Shared: 3 } as const;
const VALIDATION = { DecompressionError: 1, ChecksumMismatch: 2, BatchDeSerializeError: 3, DecryptionError: 4 } as const;

export interface ConsumerSettings {
  receiverQueueSize: number;
  /** The partition this consumer reads (-1 for a topic that is not partitioned). */
  partition: number;
  /** The topic the caller subscribed to (the partitioned topic's name, not the partition's). */
  reportedTopic: string;
  /** The pool's connection this consumer attaches on (see BinaryTransport.subscribe); 0 by default. */
  lane?: number;
}

/**
 * A subscription on one topic or partition. Flow control as Apache's clients do it: FLOW with the
 * receiver queue size on subscribing, then permits given back half a queue at a time as messages are
 * handed over, so the broker never holds back (or, on a non-persistent topic, drops) what could be taken.
 * Batches are unpacked; an entry is acked once every message of it is.
 */
export class BinaryConsumer extends ReconnectingHandle implements ConsumerChannel, ConsumerListener {
  readonly subscription: string;
  private consumerId = -1;
  private permitsTaken = 0;
  /** Batched entries with messages not yet acked: entry -> batch indexes outstanding. */
  private readonly openBatches = new Map<string, Set<number>>();
  private readonly negativeAcks: NegativeAcks;
  private readonly chunks = new ChunkedMessages();
  /** Chunked messages handed over and not yet acked: the last chunk's entry -> every chunk's id. */
  private readonly chunkGroups = new Map<string, MessageId[]>();

  constructor(
    context: HandleContext,
    topic: string,
    private readonly options: SubscribeOptions,
    private readonly settings: ConsumerSettings,
    private readonly onMessageCallback: (message: IncomingMessage) => void,
  ) {
    super(context, topic, `consumer ${topic} [${options.subscription}]`, settings.lane);
    this.subscription = options.subscription;
    this.negativeAcks = new NegativeAcks(options.negativeAckRedeliveryDelayMs ?? 1_000, (ids) => this.redeliver(ids));
  }

  ack(messageId: string): void {
    const id = this.parse(messageId);
    if (!id) return;
    const entry = entryKey(id);
    this.negativeAcks.forget(entry);
    const chunkIds = this.chunkGroups.get(entry);
    if (chunkIds) {
      this.chunkGroups.delete(entry);
      for (const chunkId of chunkIds) this.sendAck(chunkId);
      return;
    }
    if (id.batchIndex >= 0) {
      const open = this.openBatches.get(entry);
      open?.delete(id.batchIndex);
      if (open && open.size > 0) return;
      this.openBatches.delete(entry);
    }
    this.sendAck(id);
  }

  nack(messageId: string): void {
    const id = this.parse(messageId);
    if (!id) return;
    // The broker redelivers whole entries; the batch's bookkeeping starts afresh when it comes back.
    this.openBatches.delete(entryKey(id));
    const chunkIds = this.chunkGroups.get(entryKey(id));
    this.chunkGroups.delete(entryKey(id));
    for (const each of chunkIds ?? [id]) this.negativeAcks.add(entryKey(each), each);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.negativeAcks.clear();
    const id = this.consumerId;
    await this.closeOnBroker(
      (request_id) => ({ type: CommandType.CLOSE_CONSUMER, close_consumer: { consumer_id: id, request_id } }),
      async (connection) => {
        // See SubscribeOptions.closeLingerMs: a persistent topic's broker redelivers what comes too late.
        const linger = this.topic.startsWith("non-persistent://") ? (this.options.closeLingerMs ?? 0) : 0;
        if (linger > 0) await sleep(linger);
        connection.removeConsumer(id);
      },
    );
  }

  protected async attach(connection: BrokerConnection): Promise<void> {
    const id = connection.newConsumerId();
    this.consumerId = id;
    connection.addConsumer(id, this);
    try {
      await connection.request(this.label, (request_id) => ({
        type: CommandType.SUBSCRIBE,
        subscribe: {
          topic: this.topic,
          subscription: this.options.subscription,
          subType: SUB_TYPES[this.options.type],
          consumer_id: id,
          request_id,
          initialPosition: this.options.initialPosition === "Earliest" ? 1 : 0,
          ...(this.options.consumerName ? { consumer_name: this.options.consumerName } : {}),
        },
      }));
    } catch (err) {
      connection.removeConsumer(id);
      throw err;
    }
    this.permitsTaken = 0;
    this.flow(this.settings.receiverQueueSize);
  }

  protected detached(): void {
    this.consumerId = -1;
    // The broker redelivers every chunk not acked, on the next connection.
    this.chunks.clear();
    this.chunkGroups.clear();
  }

  onClosedByBroker(): void {
    this.lost("the broker closed the consumer");
  }

  onConnectionLost(): void {
    this.lost("the connection dropped");
  }

  onMessage(frame: Frame): void {
    const command = frame.command.message!;
    const metadata = frame.metadata;
    const id = fromMessageIdData(command.message_id, this.settings.partition);
    const log = this.context.logger;
    if (!metadata || !frame.payload) {
      log.error({ handle: this.label, messageId: formatMessageId(id) }, "MESSAGE without payload; skipped");
      return this.discard(id, 1);
    }
    const batched = Object.prototype.hasOwnProperty.call(metadata, "num_messages_in_batch");
    const count = batched ? (metadata.num_messages_in_batch ?? 1) : 1;
    if (!frame.checksumValid) {
      log.error({ handle: this.label, messageId: formatMessageId(id) }, "message failed its CRC32C check; discarded");
      return this.discard(id, count, VALIDATION.ChecksumMismatch);
    }
    if (metadata.encryption_algo) {
      log.error({ handle: this.label, messageId: formatMessageId(id) }, "encrypted message: not supported; discarded");
      return this.discard(id, count, VALIDATION.DecryptionError);
    }
    let wire = frame.payload;
    if ((metadata.num_chunks_from_msg ?? 1) > 1) {
      // A chunk: the message is handed over when its last chunk comes, as one message with the last chunk's id.
      const whole = this.chunks.add(
        {
          uuid: metadata.uuid ?? "",
          chunkId: metadata.chunk_id ?? -1,
          numChunks: metadata.num_chunks_from_msg ?? 1,
          totalSize: metadata.total_chunk_msg_size ?? -1,
          id,
          payload: frame.payload,
          publishTimeMs: Number(metadata.publish_time.toString()),
        },
        (dropped) => this.dropChunks(dropped),
      );
      if (!whole) return this.givePermits(1);
      this.chunkGroups.set(entryKey(id), whole.ids);
      wire = whole.payload;
    }
    let payload: Buffer;
    try {
      payload = decompress(metadata.compression ?? 0, wire, metadata.uncompressed_size ?? wire.length);
    } catch (err) {
      log.error({ handle: this.label, messageId: formatMessageId(id), err: (err as Error).message }, "message discarded");
      // A chunked message's other chunks go with it.
      const chunkIds = this.chunkGroups.get(entryKey(id)) ?? [];
      this.chunkGroups.delete(entryKey(id));
      for (const chunkId of chunkIds.slice(0, -1)) this.sendAck(chunkId, VALIDATION.DecompressionError);
      return this.discard(id, count, VALIDATION.DecompressionError);
    }
    const publishTime = new Date(Number(metadata.publish_time.toString())).toISOString();
    const redeliveryCount = command.redelivery_count ?? 0;
    if (!batched) {
      const key = metadata.partition_key ? decodeKey(metadata.partition_key, metadata.partition_key_b64_encoded) : undefined;
      const properties = Object.fromEntries((metadata.properties ?? []).map((p) => [p.key, p.value]));
      return this.deliver({ id, payload, properties, key, publishTime, redeliveryCount });
    }
    let messages: BatchedMessage[];
    try {
      messages = unpackBatch(payload, count);
    } catch (err) {
      log.error({ handle: this.label, messageId: formatMessageId(id), err: (err as Error).message }, "batch discarded");
      return this.discard(id, count, VALIDATION.BatchDeSerializeError);
    }
    const wanted = messages.filter((m) => !m.skip);
    if (wanted.length === 0) return this.discard(id, count);
    this.openBatches.set(entryKey(id), new Set(wanted.map((m) => m.index)));
    this.givePermits(count - wanted.length);
    for (const message of wanted) {
      this.deliver({
        id: { ...id, batchIndex: message.index },
        payload: message.payload,
        properties: Object.fromEntries(message.properties.map((p) => [p.key, p.value])),
        key: message.key,
        publishTime,
        redeliveryCount,
      });
    }
  }

  private deliver(m: {
    id: MessageId;
    payload: Buffer;
    properties: Record<string, string>;
    key: string | undefined;
    publishTime: string;
    redeliveryCount: number;
  }): void {
    this.givePermits(1);
    try {
      this.onMessageCallback({
        topic: this.settings.reportedTopic,
        messageId: formatMessageId(m.id),
        payload: m.payload,
        properties: m.properties,
        publishTime: m.publishTime,
        redeliveryCount: m.redeliveryCount,
        ...(m.key !== undefined ? { key: m.key } : {}),
      });
    } catch (err) {
      this.context.logger.error({ handle: this.label, err }, "message callback threw");
    }
  }

  /** Chunks given up while assembling: acked, or redelivered after the negative-ack delay. */
  private dropChunks({ ids, reason, ack }: DroppedChunks): void {
    this.context.logger[ack ? "error" : "warn"](
      { handle: this.label, messageIds: ids.map(formatMessageId), outcome: ack ? "acked" : "redelivered" },
      reason,
    );
    for (const id of ids) {
      if (ack) this.sendAck(id);
      else this.negativeAcks.add(entryKey(id), id);
    }
  }

  /** Acks a message that cannot be handed over (so it is not redelivered forever) and returns its permits. */
  private discard(id: MessageId, permits: number, validationError?: number): void {
    this.sendAck({ ...id, batchIndex: -1 }, validationError);
    this.givePermits(permits);
  }

  private givePermits(count: number): void {
    this.permitsTaken += count;
    const refill = Math.max(1, Math.floor(this.settings.receiverQueueSize / 2));
    if (this.permitsTaken >= refill) {
      const permits = this.permitsTaken;
      this.permitsTaken = 0;
      this.flow(permits);
    }
  }

  private flow(permits: number): void {
    if (permits <= 0 || this.consumerId < 0 || this.closed) return;
    this.connection?.write(encodeFlow(this.consumerId, permits));
  }

  private sendAck(id: MessageId, validationError?: number): void {
    // Dropped while disconnected or closed: the broker redelivers unacked messages (persistent topics) anyway.
    if (this.consumerId < 0 || this.closed) return;
    this.connection?.write(
      encodeCommand({
        type: CommandType.ACK,
        ack: {
          consumer_id: this.consumerId,
          ack_type: 0,
          message_id: [toEntryIdData(id)],
          ...(validationError !== undefined ? { validation_error: validationError } : {}),
        },
      }),
    );
  }

  private redeliver(ids: MessageId[]): void {
    if (this.consumerId < 0 || this.closed || ids.length === 0) return;
    this.connection?.write(
      encodeCommand({
        type: CommandType.REDELIVER_UNACKNOWLEDGED_MESSAGES,
        redeliverUnacknowledgedMessages: { consumer_id: this.consumerId, message_ids: ids.map(toEntryIdData) },
      }),
    );
  }

  private parse(messageId: string): MessageId | undefined {
    const id = parseMessageId(messageId);
    if (!id) this.context.logger.warn({ handle: this.label, messageId }, "not a message id of this transport; ignored");
    return id;
  }
}

function encodeFlow(consumerId: number, permits: number): Buffer {
  return encodeCommand({ type: CommandType.FLOW, flow: { consumer_id: consumerId, messagePermits: permits } });
}
