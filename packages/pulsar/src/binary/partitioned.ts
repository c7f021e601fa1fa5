import type { ConsumerChannel, OutgoingMessage, ProducerChannel } from "../transport.js";
import { parseMessageId } from "./message-id.js";

/** `persistent://t/n/topic-partition-3`: how Pulsar names the partitions of a partitioned topic. */
export function partitionTopic(topic: string, partition: number): string {
  return `${topic}-partition-${partition}`;
}

/**
 * A producer on every partition: messages with a key go to the key's partition (so one key keeps its
 * order), the rest round-robin.
 */
export class PartitionedProducer implements ProducerChannel {
  private next = 0;

  constructor(
    readonly topic: string,
    private readonly partitions: ProducerChannel[],
  ) {}

  get connected(): boolean {
    return this.partitions.every((p) => p.connected);
  }

  send(message: OutgoingMessage): Promise<string> {
    const index = message.key !== undefined ? keyHash(message.key) % this.partitions.length : this.next++ % this.partitions.length;
    return this.partitions[index]!.send(message);
  }

  async close(): Promise<void> {
    await Promise.all(this.partitions.map((p) => p.close()));
  }
}

/** A subscription on every partition; acks go back to the partition the message id names. */
export class PartitionedConsumer implements ConsumerChannel {
  constructor(
    readonly topic: string,
    readonly subscription: string,
    private readonly partitions: ConsumerChannel[],
  ) {}

  get connected(): boolean {
    return this.partitions.every((p) => p.connected);
  }

  ack(messageId: string): void {
    this.route(messageId)?.ack(messageId);
  }

  nack(messageId: string): void {
    this.route(messageId)?.nack(messageId);
  }

  async close(): Promise<void> {
    await Promise.all(this.partitions.map((p) => p.close()));
  }

  private route(messageId: string): ConsumerChannel | undefined {
    const id = parseMessageId(messageId);
    return id ? this.partitions[id.partition] : undefined;
  }
}

/** FNV-1a over the key's UTF-8 bytes: stable across processes, which is all routing needs. */
function keyHash(key: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(key, "utf8")) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
