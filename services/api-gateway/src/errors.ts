import {
  ClosedError,
  MessageTooLargeError,
  NotRunningError,
  PulsarError,
  ReplyFormatError,
  RequestTimeoutError,
  SendError,
} from "@toolmesh/pulsar";
import { ErrorType, ServiceError } from "@toolmesh/schema";

/**
 * Maps anything a dispatch can throw to what a caller may see. Timeouts keep their message (it names the
 * topic, which is what an operator needs); other internals stay in the log.
 */
export function toServiceError(err: unknown): ServiceError {
  if (err instanceof ServiceError) return err;
  if (err instanceof RequestTimeoutError) return new ServiceError(ErrorType.timeout, err.message);
  // The service is not running: the message names the topic nothing consumes, what an operator needs.
  if (err instanceof NotRunningError) return new ServiceError(ErrorType.unavailable, err.message);
  if (err instanceof ClosedError) {
    return new ServiceError(ErrorType.unavailable, "the gateway is shutting down; retry");
  }
  // Refused before it was sent: the caller's request is too big for the bus, and may say so (no internals).
  if (err instanceof MessageTooLargeError) return new ServiceError(ErrorType.tooLarge, err.message);
  if (err instanceof SendError) {
    return new ServiceError(ErrorType.badGateway, "the request could not be delivered to the broker");
  }
  if (err instanceof ReplyFormatError) {
    return new ServiceError(ErrorType.badGateway, "the service sent a reply the gateway could not read");
  }
  if (err instanceof PulsarError) {
    return new ServiceError(ErrorType.badGateway, "the broker refused the request; see the gateway log");
  }
  return new ServiceError(ErrorType.internal, "internal error; see the gateway log");
}
