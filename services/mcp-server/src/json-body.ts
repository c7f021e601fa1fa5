import type { IncomingMessage } from "node:http";
import type { FastifyRequest } from "fastify";

/** A POST body over the limit, read to its end and dropped: the route answers it with a JSON-RPC error. */
export class BodyTooLarge {
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {}
}

class DrainLimitExceeded extends Error {
  readonly statusCode = 413;
}

/**
 * The MCP routes' body reader: the text of a body up to `limit` bytes; a larger one up to `drainLimit` is
 * read and discarded (`BodyTooLarge`), so that the client, still sending, can read the JSON-RPC error
 * (fastify's own limit answers and closes mid-upload: HTTP clients such as httpx then see a reset, not
 * the answer). Past `drainLimit` the connection is closed as fastify would.
 */
export function jsonBodyReader(limit: number, drainLimit: number) {
  return (_request: FastifyRequest, payload: IncomingMessage, done: (err: Error | null, body?: unknown) => void): void => {
    const declared = Number(payload.headers["content-length"]);
    if (declared > drainLimit) return done(new DrainLimitExceeded(`the request body is over the limit of ${limit} bytes`));
    const chunks: Buffer[] = [];
    let received = 0;
    let finished = false;
    const finish = (err: Error | null, body?: unknown) => {
      if (finished) return;
      finished = true;
      done(err, body);
    };
    payload.on("data", (chunk: Buffer) => {
      received += chunk.length;
      if (received <= limit) chunks.push(chunk);
      else if (chunks.length > 0) chunks.length = 0;
      if (received > drainLimit) finish(new DrainLimitExceeded(`the request body is over the limit of ${limit} bytes`));
    });
    payload.on("end", () => finish(null, received > limit ? new BodyTooLarge(received, limit) : Buffer.concat(chunks).toString("utf8")));
    payload.on("error", (err) => finish(err));
  };
}
