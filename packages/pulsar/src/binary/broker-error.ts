import { PulsarError } from "../errors.js";
import { serverErrorName } from "./pulsar-api.js";

/** Errors a retry cannot fix: the request itself is wrong or not allowed. Others are retried with backoff. */
const FATAL = new Set([
  "AuthenticationError",
  "AuthorizationError",
  "InvalidTopicName",
  "NotAllowedError",
  "IncompatibleSchema",
  "TopicTerminatedError",
  "ProducerFenced",
  "UnsupportedVersionError",
]);

/** The broker answered a command with an error (ERROR, a failed lookup, SEND_ERROR). */
export class BrokerError extends PulsarError {
  override name = "BrokerError";
  readonly code: string;
  constructor(what: string, code: number | undefined, reason: string | undefined) {
    const name = serverErrorName(code);
    super(`broker refused ${what}: ${name}${reason ? ` (${reason})` : ""}`);
    this.code = name;
  }

  get retriable(): boolean {
    return !FATAL.has(this.code);
  }
}

/** True for errors worth another attempt after a pause (lost connection, broker not ready). */
export function isRetriable(err: unknown): boolean {
  return !(err instanceof BrokerError) || err.retriable;
}
