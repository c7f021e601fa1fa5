import { ClosedError, MessageTooLargeError, PulsarError, ReplyFormatError, RequestTimeoutError, SendError } from "@toolmesh/pulsar";
import { ErrorType, type WireError } from "@toolmesh/schema";

/** Error types the gateway itself answers with, beside the shared ones in @toolmesh/schema. */
export const GatewayErrorType = {
  badRequest: ErrorType.badRequest,
  unauthorized: "unauthorized",
  forbidden: "forbidden",
  notFound: "not-found",
  unknownService: "unknown-service",
  configError: ErrorType.configError,
  timeout: ErrorType.timeout,
  tooLarge: ErrorType.tooLarge,
  badGateway: "bad-gateway",
  unavailable: "unavailable",
  internal: ErrorType.internal,
} as const;

/** A failure of the gateway itself (not a service's own error reply), with the HTTP status it maps to. */
export class GatewayError extends Error {
  override name = "GatewayError";
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }

  get body(): { error: WireError } {
    return { error: { type: this.type, message: this.message } };
  }
}

/**
 * Maps anything a dispatch can throw to what a caller may see. Timeouts keep their message (it names the
 * topic, which is what an operator needs); other internals stay in the log.
 */
export function toGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  if (err instanceof RequestTimeoutError) return new GatewayError(504, GatewayErrorType.timeout, err.message);
  if (err instanceof ClosedError) {
    return new GatewayError(503, GatewayErrorType.unavailable, "the gateway is shutting down; retry");
  }
  // Refused before it was sent: the caller's request is too big for the bus, and may say so (no internals).
  if (err instanceof MessageTooLargeError) return new GatewayError(413, GatewayErrorType.tooLarge, err.message);
  if (err instanceof SendError) {
    return new GatewayError(502, GatewayErrorType.badGateway, "the request could not be delivered to the broker");
  }
  if (err instanceof ReplyFormatError) {
    return new GatewayError(502, GatewayErrorType.badGateway, "the service sent a reply the gateway could not read");
  }
  if (err instanceof PulsarError) {
    return new GatewayError(502, GatewayErrorType.badGateway, "the broker refused the request; see the gateway log");
  }
  return new GatewayError(500, GatewayErrorType.internal, "internal error; see the gateway log");
}
