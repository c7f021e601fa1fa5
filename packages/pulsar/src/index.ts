export { AsyncQueue } from "./async-queue.js";
export { Backoff, type BackoffOptions } from "./backoff.js";
export { PulsarClient, type HandlerOptions, type MessageHandler, type PulsarClientOptions, type Subscription } from "./client.js";
export { ClosedError, PulsarError, ReplyFormatError, RequestTimeoutError, SendError } from "./errors.js";
export { decodeJson, encodeJson, type DecodeResult } from "./json.js";
export { ConcurrencyLimiter } from "./limiter.js";
export { RequestClient, type RequestClientOptions, type RequestOptions } from "./request-client.js";
export {
  ReplyError,
  serve,
  type RequestContext,
  type RequestOutcome,
  type ServeOptions,
} from "./request-server.js";
export type * from "./transport.js";
export { BinaryTransport, type BinaryTransportOptions } from "./binary/transport.js";
export { createTransport, transportKind, type TransportKind, type TransportSettings } from "./transport-factory.js";
export { WebSocketTransport, type WebSocketTransportOptions } from "./ws/transport.js";
