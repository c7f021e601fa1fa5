import Long from "long";
import { type MessageIdData, toNumber } from "./commands.js";

/**
 * A message id as the rest of toolmesh sees it: `ledger:entry:partition:batchIndex` (partition -1 on a
 * topic that is not partitioned, batchIndex -1 for a message that was not batched).
 */
export interface MessageId {
  ledgerId: string;
  entryId: string;
  partition: number;
  batchIndex: number;
}

const FORMAT = /^(\d+):(\d+):(-1|\d+):(-1|\d+)$/;

export function formatMessageId(id: MessageId): string {
  return `${id.ledgerId}:${id.entryId}:${id.partition}:${id.batchIndex}`;
}

/** Undefined when `text` is not one of ours (a caller's typo, or an id from the other transport). */
export function parseMessageId(text: string): MessageId | undefined {
  const match = FORMAT.exec(text);
  if (!match) return undefined;
  return { ledgerId: match[1]!, entryId: match[2]!, partition: Number(match[3]), batchIndex: Number(match[4]) };
}

export function fromMessageIdData(data: MessageIdData, partition: number, batchIndex = -1): MessageId {
  return { ledgerId: data.ledgerId.toString(), entryId: data.entryId.toString(), partition, batchIndex };
}

/** The entry a message lives in, which is what the broker acks and redelivers. */
export function entryKey(id: MessageId): string {
  return `${id.ledgerId}:${id.entryId}`;
}

/** The wire form of the entry (batch index left out: acks and redeliveries are per entry here). */
export function toEntryIdData(id: MessageId): object {
  return {
    ledgerId: Long.fromString(id.ledgerId, true),
    entryId: Long.fromString(id.entryId, true),
    ...(id.partition >= 0 ? { partition: id.partition } : {}),
  };
}

export { toNumber };
