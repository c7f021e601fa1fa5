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

/** The broker refused or never confirmed a message. */
export class SendError extends PulsarError {
  override name = "SendError";
}

/** Used after close(); pending work is rejected with it. */
export class ClosedError extends PulsarError {
  override name = "ClosedError";
}

/** A reply that is not valid JSON or does not match the expected schema. */
export class ReplyFormatError extends PulsarError {
  override name = "ReplyFormatError";
}
