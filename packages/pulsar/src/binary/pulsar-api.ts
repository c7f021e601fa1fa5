import protobuf from "protobufjs";

/**
 * The part of Pulsar's wire protocol (PulsarApi.proto, proto2) this transport speaks, written from the
 * protocol's documented field numbers. Only the commands and fields used here are declared: protobuf
 * skips unknown fields, so a newer broker's extra fields are harmless.
 */
const PROTO = `
syntax = "proto2";
package pulsar.proto;

message MessageIdData {
  required uint64 ledgerId = 1;
  required uint64 entryId = 2;
  optional int32 partition = 3 [default = -1];
  optional int32 batch_index = 4 [default = -1];
  optional int32 batch_size = 6;
}
message KeyValue { required string key = 1; required string value = 2; }

enum CompressionType { NONE = 0; LZ4 = 1; ZLIB = 2; ZSTD = 3; SNAPPY = 4; }

message MessageMetadata {
  required string producer_name = 1;
  required uint64 sequence_id = 2;
  required uint64 publish_time = 3;
  repeated KeyValue properties = 4;
  optional string partition_key = 6;
  optional CompressionType compression = 8 [default = NONE];
  optional uint32 uncompressed_size = 9 [default = 0];
  optional int32 num_messages_in_batch = 11 [default = 1];
  optional uint64 event_time = 12 [default = 0];
  optional string encryption_algo = 14;
  optional bool partition_key_b64_encoded = 17 [default = false];
  optional bool null_value = 25 [default = false];
  optional string uuid = 26;
  optional int32 num_chunks_from_msg = 27;
  optional int32 total_chunk_msg_size = 28;
  optional int32 chunk_id = 29;
}

message SingleMessageMetadata {
  repeated KeyValue properties = 1;
  optional string partition_key = 2;
  required int32 payload_size = 3;
  optional bool compacted_out = 4 [default = false];
  optional uint64 event_time = 5 [default = 0];
  optional bool partition_key_b64_encoded = 6 [default = false];
  optional uint64 sequence_id = 8;
  optional bool null_value = 9 [default = false];
}

message CommandConnect {
  required string client_version = 1;
  optional bytes auth_data = 3;
  optional int32 protocol_version = 4 [default = 0];
  optional string auth_method_name = 5;
  optional string proxy_to_broker_url = 6;
  optional FeatureFlags feature_flags = 10;
}
message FeatureFlags {
  optional bool supports_auth_refresh = 1 [default = false];
}
message CommandConnected {
  required string server_version = 1;
  optional int32 protocol_version = 2 [default = 0];
  optional int32 max_message_size = 3;
}
message AuthData { optional string auth_method_name = 1; optional bytes auth_data = 2; }
message CommandAuthChallenge {
  optional string server_version = 1;
  optional AuthData challenge = 2;
  optional int32 protocol_version = 3 [default = 0];
}
message CommandAuthResponse {
  optional string client_version = 1;
  optional AuthData response = 2;
  optional int32 protocol_version = 3 [default = 0];
}

message CommandSubscribe {
  enum SubType { Exclusive = 0; Shared = 1; Failover = 2; Key_Shared = 3; }
  enum InitialPosition { Latest = 0; Earliest = 1; }
  required string topic = 1;
  required string subscription = 2;
  required SubType subType = 3;
  required uint64 consumer_id = 4;
  required uint64 request_id = 5;
  optional string consumer_name = 6;
  optional bool durable = 8 [default = true];
  optional InitialPosition initialPosition = 13 [default = Latest];
}

message CommandPartitionedTopicMetadata { required string topic = 1; required uint64 request_id = 2; }
message CommandPartitionedTopicMetadataResponse {
  enum LookupType { Success = 0; Failed = 1; }
  optional uint32 partitions = 1;
  required uint64 request_id = 2;
  optional LookupType response = 3;
  optional int32 error = 4;
  optional string message = 5;
}

message CommandLookupTopic {
  required string topic = 1;
  required uint64 request_id = 2;
  optional bool authoritative = 3 [default = false];
}
message CommandLookupTopicResponse {
  enum LookupType { Redirect = 0; Connect = 1; Failed = 2; }
  optional string brokerServiceUrl = 1;
  optional string brokerServiceUrlTls = 2;
  optional LookupType response = 3;
  required uint64 request_id = 4;
  optional bool authoritative = 5 [default = false];
  optional int32 error = 6;
  optional string message = 7;
  optional bool proxy_through_service_url = 8 [default = false];
}

message CommandProducer {
  required string topic = 1;
  required uint64 producer_id = 2;
  required uint64 request_id = 3;
  optional string producer_name = 4;
}
message CommandProducerSuccess {
  required uint64 request_id = 1;
  required string producer_name = 2;
  optional int64 last_sequence_id = 3 [default = -1];
  optional bool producer_ready = 6 [default = true];
}

message CommandSend {
  required uint64 producer_id = 1;
  required uint64 sequence_id = 2;
  optional int32 num_messages = 3 [default = 1];
}
message CommandSendReceipt {
  required uint64 producer_id = 1;
  required uint64 sequence_id = 2;
  optional MessageIdData message_id = 3;
}
message CommandSendError {
  required uint64 producer_id = 1;
  required uint64 sequence_id = 2;
  required int32 error = 3;
  required string message = 4;
}

message CommandMessage {
  required uint64 consumer_id = 1;
  required MessageIdData message_id = 2;
  optional uint32 redelivery_count = 3 [default = 0];
}
message CommandAck {
  enum AckType { Individual = 0; Cumulative = 1; }
  enum ValidationError {
    UncompressedSizeCorruption = 0; DecompressionError = 1; ChecksumMismatch = 2;
    BatchDeSerializeError = 3; DecryptionError = 4;
  }
  required uint64 consumer_id = 1;
  required AckType ack_type = 2;
  repeated MessageIdData message_id = 3;
  optional ValidationError validation_error = 4;
}
message CommandFlow { required uint64 consumer_id = 1; required uint32 messagePermits = 2; }
message CommandCloseProducer { required uint64 producer_id = 1; required uint64 request_id = 2; }
message CommandCloseConsumer { required uint64 consumer_id = 1; required uint64 request_id = 2; }
message CommandRedeliverUnacknowledgedMessages {
  required uint64 consumer_id = 1;
  repeated MessageIdData message_ids = 2;
}
message CommandSuccess { required uint64 request_id = 1; }
message CommandError { required uint64 request_id = 1; required int32 error = 2; required string message = 3; }
message CommandPing {}
message CommandPong {}
message CommandActiveConsumerChange { required uint64 consumer_id = 1; optional bool is_active = 2 [default = false]; }
message CommandReachedEndOfTopic { required uint64 consumer_id = 1; }

message BaseCommand {
  enum Type {
    CONNECT = 2; CONNECTED = 3; SUBSCRIBE = 4; PRODUCER = 5; SEND = 6; SEND_RECEIPT = 7; SEND_ERROR = 8;
    MESSAGE = 9; ACK = 10; FLOW = 11; UNSUBSCRIBE = 12; SUCCESS = 13; ERROR = 14;
    CLOSE_PRODUCER = 15; CLOSE_CONSUMER = 16; PRODUCER_SUCCESS = 17; PING = 18; PONG = 19;
    REDELIVER_UNACKNOWLEDGED_MESSAGES = 20; PARTITIONED_METADATA = 21; PARTITIONED_METADATA_RESPONSE = 22;
    LOOKUP = 23; LOOKUP_RESPONSE = 24; CONSUMER_STATS = 25; CONSUMER_STATS_RESPONSE = 26;
    REACHED_END_OF_TOPIC = 27; SEEK = 28; GET_LAST_MESSAGE_ID = 29; GET_LAST_MESSAGE_ID_RESPONSE = 30;
    ACTIVE_CONSUMER_CHANGE = 31; GET_TOPICS_OF_NAMESPACE = 32; GET_TOPICS_OF_NAMESPACE_RESPONSE = 33;
    GET_SCHEMA = 34; GET_SCHEMA_RESPONSE = 35; AUTH_CHALLENGE = 36; AUTH_RESPONSE = 37; ACK_RESPONSE = 38;
    GET_OR_CREATE_SCHEMA = 39; GET_OR_CREATE_SCHEMA_RESPONSE = 40; TOPIC_MIGRATED = 68;
  }
  required Type type = 1;
  optional CommandConnect connect = 2;
  optional CommandConnected connected = 3;
  optional CommandSubscribe subscribe = 4;
  optional CommandProducer producer = 5;
  optional CommandSend send = 6;
  optional CommandSendReceipt send_receipt = 7;
  optional CommandSendError send_error = 8;
  optional CommandMessage message = 9;
  optional CommandAck ack = 10;
  optional CommandFlow flow = 11;
  optional CommandSuccess success = 13;
  optional CommandError error = 14;
  optional CommandCloseProducer close_producer = 15;
  optional CommandCloseConsumer close_consumer = 16;
  optional CommandProducerSuccess producer_success = 17;
  optional CommandPing ping = 18;
  optional CommandPong pong = 19;
  optional CommandRedeliverUnacknowledgedMessages redeliverUnacknowledgedMessages = 20;
  optional CommandPartitionedTopicMetadata partitionMetadata = 21;
  optional CommandPartitionedTopicMetadataResponse partitionMetadataResponse = 22;
  optional CommandLookupTopic lookupTopic = 23;
  optional CommandLookupTopicResponse lookupTopicResponse = 24;
  optional CommandReachedEndOfTopic reachedEndOfTopic = 27;
  optional CommandActiveConsumerChange active_consumer_change = 31;
  optional CommandAuthChallenge authChallenge = 36;
  optional CommandAuthResponse authResponse = 37;
}
`;

const root = protobuf.parse(PROTO, { keepCase: true }).root;

export const BaseCommand = root.lookupType("pulsar.proto.BaseCommand");
export const MessageMetadata = root.lookupType("pulsar.proto.MessageMetadata");
export const SingleMessageMetadata = root.lookupType("pulsar.proto.SingleMessageMetadata");
type CommandName =
  | "CONNECT"
  | "CONNECTED"
  | "SUBSCRIBE"
  | "PRODUCER"
  | "SEND"
  | "SEND_RECEIPT"
  | "SEND_ERROR"
  | "MESSAGE"
  | "ACK"
  | "FLOW"
  | "SUCCESS"
  | "ERROR"
  | "CLOSE_PRODUCER"
  | "CLOSE_CONSUMER"
  | "PRODUCER_SUCCESS"
  | "PING"
  | "PONG"
  | "REDELIVER_UNACKNOWLEDGED_MESSAGES"
  | "PARTITIONED_METADATA"
  | "PARTITIONED_METADATA_RESPONSE"
  | "LOOKUP"
  | "LOOKUP_RESPONSE"
  | "REACHED_END_OF_TOPIC"
  | "GET_LAST_MESSAGE_ID_RESPONSE"
  | "ACTIVE_CONSUMER_CHANGE"
  | "AUTH_CHALLENGE"
  | "AUTH_RESPONSE";
/** BaseCommand.Type numbers by name, read from the definition above (one source for the numbers). */
export const CommandType = root.lookupEnum("pulsar.proto.BaseCommand.Type").values as Readonly<Record<CommandName, number>>;
export const CompressionType = root.lookupEnum("pulsar.proto.CompressionType").values as Readonly<
  Record<"NONE" | "LZ4" | "ZLIB" | "ZSTD" | "SNAPPY", number>
>;
/** Pulsar's ServerError enum, by number, for error messages (decoded as int32 so an unknown value never fails). */
export const SERVER_ERRORS = [
  "UnknownError",
  "MetadataError",
  "PersistenceError",
  "AuthenticationError",
  "AuthorizationError",
  "ConsumerBusy",
  "ServiceNotReady",
  "ProducerBlockedQuotaExceededError",
  "ProducerBlockedQuotaExceededException",
  "ChecksumError",
  "UnsupportedVersionError",
  "TopicNotFound",
  "SubscriptionNotFound",
  "ConsumerNotFound",
  "TooManyRequests",
  "TopicTerminatedError",
  "ProducerBusy",
  "InvalidTopicName",
  "IncompatibleSchema",
  "ConsumerAssignError",
  "TransactionCoordinatorNotFound",
  "InvalidTxnStatus",
  "NotAllowedError",
  "TransactionConflict",
  "TransactionNotFound",
  "ProducerFenced",
] as const;

export function serverErrorName(code: number | undefined): string {
  return SERVER_ERRORS[code ?? 0] ?? `ServerError(${String(code)})`;
}
