/**
 * Typed views of the decoded protocol messages (pulsar-api.ts). protobufjs decodes uint64 as a Long;
 * request, producer and consumer ids stay far below 2^53 and are read with `toNumber`, ledger and entry
 * ids are kept as decimal strings.
 */
export interface LongLike {
  toString(): string;
  toNumber?(): number;
}
export type Uint64 = number | LongLike;

export function toNumber(value: Uint64 | undefined | null): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === "number") return value;
  return value.toNumber ? value.toNumber() : Number(value.toString());
}

export interface KeyValue {
  key: string;
  value: string;
}

export interface MessageIdData {
  ledgerId: Uint64;
  entryId: Uint64;
  partition?: number;
  batch_index?: number;
  batch_size?: number;
}

export interface MessageMetadataData {
  producer_name: string;
  sequence_id: Uint64;
  publish_time: Uint64;
  properties?: KeyValue[];
  partition_key?: string;
  compression?: number;
  uncompressed_size?: number;
  num_messages_in_batch?: number;
  encryption_algo?: string;
  partition_key_b64_encoded?: boolean;
  null_value?: boolean;
  uuid?: string;
  num_chunks_from_msg?: number;
  total_chunk_msg_size?: number;
  chunk_id?: number;
}

export interface SingleMessageMetadataData {
  properties?: KeyValue[];
  partition_key?: string;
  payload_size: number;
  compacted_out?: boolean;
  partition_key_b64_encoded?: boolean;
  null_value?: boolean;
}

interface WithRequestId {
  request_id: Uint64;
}
interface WithError extends WithRequestId {
  error?: number;
  message?: string;
}

/** BaseCommand as decoded: `type` plus the one field that type names (the rest absent). */
export interface BaseCommandData {
  type: number;
  connected?: { server_version: string; protocol_version?: number; max_message_size?: number };
  authChallenge?: { challenge?: { auth_method_name?: string; auth_data?: Uint8Array } };
  send_receipt?: { producer_id: Uint64; sequence_id: Uint64; message_id?: MessageIdData };
  send_error?: { producer_id: Uint64; sequence_id: Uint64; error: number; message: string };
  message?: { consumer_id: Uint64; message_id: MessageIdData; redelivery_count?: number };
  success?: WithRequestId;
  error?: WithError & { error: number; message: string };
  close_producer?: { producer_id: Uint64 };
  close_consumer?: { consumer_id: Uint64 };
  producer_success?: WithRequestId & { producer_name: string; last_sequence_id?: Uint64; producer_ready?: boolean };
  partitionMetadataResponse?: WithError & { partitions?: number; response?: number };
  lookupTopicResponse?: WithError & {
    brokerServiceUrl?: string;
    brokerServiceUrlTls?: string;
    response?: number;
    authoritative?: boolean;
    proxy_through_service_url?: boolean;
  };
  reachedEndOfTopic?: { consumer_id: Uint64 };
  active_consumer_change?: { consumer_id: Uint64; is_active?: boolean };
}

/** The request id a broker response answers, if it is a response to a request. */
export function responseRequestId(command: BaseCommandData): number | undefined {
  const response =
    command.success ?? command.error ?? command.producer_success ?? command.partitionMetadataResponse ?? command.lookupTopicResponse;
  return response ? toNumber(response.request_id) : undefined;
}
