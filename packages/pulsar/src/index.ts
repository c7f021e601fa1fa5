export { ABORTED, unlessAborted } from "./abort.js";
export { AsyncQueue } from "./async-queue.js";
export { FirstContact } from "./first-contact.js";
export { Backoff, type BackoffOptions } from "./backoff.js";
export {
  DEFAULT_SERVICE_CHECK_MS,
  PulsarClient,
  type HandlerOptions,
  type MessageHandler,
  type PulsarClientOptions,
  type Subscription,
} from "./client.js";
export { BrokerDrops, type BrokerDropsOptions } from "./broker-drops.js";
export { DEADLINE_PROPERTY, deadlineAfter, isExpired, readDeadline } from "./deadline.js";
export {
  ClosedError,
  MessageTooLargeError,
  NotRunningError,
  PulsarError,
  ReplyFormatError,
  RequestTimeoutError,
  SendError,
} from "./errors.js";
export { ServiceCheck } from "./service-check.js";
export { type StatsRead, type TopicStats, TopicStatsReader } from "./topic-stats.js";
export { decodeJson, encodeJson, type DecodeResult } from "./json.js";
export { ConcurrencyLimiter } from "./limiter.js";
export { REPLY_SESSIONS, RequestClient, type RequestClientOptions, type RequestOptions } from "./request-client.js";
export {
  DEFAULT_MAX_BACKLOG,
  serve,
  type RequestContext,
  type RequestOutcome,
  type ServeOptions,
  type SkipReason,
} from "./request-server.js";
export type * from "./transport.js";
export { messageSize } from "./transport.js";
export { DEFAULT_BROKER_MAX_MESSAGE_SIZE, DEFAULT_MAX_FRAME_SIZE, webSocketMessageLimit } from "./ws/limits.js";
export { BinaryTransport, type BinaryTransportOptions } from "./binary/transport.js";
export { authTokenOf, type AuthTokenSetting } from "./auth/auth-token.js";
export { createTransport, transportKind, type TransportKind, type TransportSettings } from "./transport-factory.js";
export { OAuth2TokenSource, type OAuth2Options } from "./auth/oauth2-token-source.js";
export { OAuth2KeyFile, readOAuth2KeyFile } from "./auth/oauth2-key-file.js";
export { WebSocketTransport, type WebSocketTransportOptions } from "./ws/transport.js";
export { MemoryBroker } from "./memory/broker.js";
export { MemoryTransport, type MemoryTransportOptions } from "./memory/transport.js";
export {
  ROOT_TRACE_CONTEXT,
  SpanKind,
  TraceAttr,
  TraceScope,
  extractTraceContext,
  injectTraceContext,
  setPlainTraceparent,
  setRootSampling,
  setUnsampledParentsStayUnsampled,
  topicName,
  traced,
  tracedStream,
  type RootSampling,
  type TraceContext,
  type TraceOptions,
} from "./tracing.js";
export { UnsampledSpan } from "./unsampled-trace.js";
