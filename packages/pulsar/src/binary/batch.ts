import type { KeyValue, SingleMessageMetadataData } from "./commands.js";
import { SingleMessageMetadata } from "./pulsar-api.js";

export interface BatchedMessage {
  index: number;
  payload: Buffer;
  properties: KeyValue[];
  key?: string;
  /** Compaction removed it, or the producer sent a null value: not handed to the application. */
  skip: boolean;
}

export class BatchFormatError extends Error {
  override name = "BatchFormatError";
}

/**
 * Splits a (decompressed) batch into its messages: `count` times [metadataSize u32][SingleMessageMetadata]
 * [payload of payload_size bytes]. Java, C++ and Python producers batch by default.
 */
export function unpackBatch(batch: Buffer, count: number): BatchedMessage[] {
  const messages: BatchedMessage[] = [];
  let at = 0;
  for (let index = 0; index < count; index++) {
    if (batch.length - at < 4) throw new BatchFormatError(`batch ends before message ${index} of ${count}`);
    const size = batch.readUInt32BE(at);
    at += 4;
    if (size > batch.length - at) throw new BatchFormatError(`message ${index}'s metadata runs past the batch`);
    let meta: SingleMessageMetadataData;
    try {
      meta = SingleMessageMetadata.decode(batch.subarray(at, at + size)) as unknown as SingleMessageMetadataData;
    } catch (err) {
      throw new BatchFormatError(`message ${index}'s metadata is undecodable: ${(err as Error).message}`);
    }
    at += size;
    if (meta.payload_size < 0 || meta.payload_size > batch.length - at) {
      throw new BatchFormatError(`message ${index}'s payload (${meta.payload_size} bytes) runs past the batch`);
    }
    const payload = batch.subarray(at, at + meta.payload_size);
    at += meta.payload_size;
    messages.push({
      index,
      payload,
      properties: meta.properties ?? [],
      ...(meta.partition_key ? { key: decodeKey(meta.partition_key, meta.partition_key_b64_encoded) } : {}),
      skip: Boolean(meta.compacted_out) || Boolean(meta.null_value),
    });
  }
  return messages;
}

/** Keys set as bytes travel base64-encoded with a flag; toolmesh keys are strings. */
export function decodeKey(key: string, base64: boolean | undefined): string {
  return base64 ? Buffer.from(key, "base64").toString("utf8") : key;
}
