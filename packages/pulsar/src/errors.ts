/** Errors the client layer raises; each message names the topic involved so a log line is enough. */
export class PulsarError extends Error {
  override name = "PulsarError";
}

/** No reply arrived in time; usually nothing consumes the request topic. */
export class RequestTimeoutError extends PulsarError {
  override name = "RequestTimeoutError";
  constructor(
    readonly requestTopic: string,
    readonly responseTopic: string,
    readonly timeoutMs: number,
    readonly requestId: string,
  ) {
    super(
      `no reply on ${responseTopic} within ${timeoutMs} ms to request ${requestId} sent to ${requestTopic} ` +
        `(is a service consuming ${requestTopic}?)`,
    );
  }
}

/**
 * A request had no reply for a while and the broker shows its service is not running (ServiceCheck):
 * nothing consumes its request topic, nothing publishes on its response topic. The call ends now instead
 * of at its timeout.
 */
export class NotRunningError extends PulsarError {
  override name = "NotRunningError";
  constructor(
    readonly requestTopic: string,
    readonly responseTopic: string,
    readonly waitedMs: number,
    readonly requestId: string,
  ) {
    super(
      `nothing consumes ${requestTopic} and nothing publishes on ${responseTopic}: request ${requestId} had no reply after ${waitedMs} ms`,
    );
  }
}

/** The broker refused or never confirmed a message. */
export class SendError extends PulsarError {
  override name = "SendError";
}

/**
 * A message over the transport's size limit, refused before it reached the connection: sending it would
 * make the broker close the session (or refuse the message) and nothing else on that link would pass.
 */
export class MessageTooLargeError extends PulsarError {
  override name = "MessageTooLargeError";
  constructor(
    readonly topic: string,
    readonly size: number,
    readonly limit: number,
    /** What was measured, when it is not the message itself (e.g. "its WebSocket frame"). */
    what = "a message",
  ) {
    super(`${what} of ${size} bytes for ${topic} exceeds the limit of ${limit} bytes`);
  }
}

/** Used after close(); pending work is rejected with it. */
export class ClosedError extends PulsarError {
  override name = "ClosedError";
}

/** A reply that is not valid JSON or does not match the expected schema. */
export class ReplyFormatError extends PulsarError {
  override name = "ReplyFormatError";
}
