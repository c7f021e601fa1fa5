import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PeerProcess, TransportKind } from "@toolmesh/test-support";
import { type PeerAndCaller, startWarmGatedPeer } from "./peer-caller.js";

// Streamed replies (a multi-megabyte chunk, then small ones, the last marked end_of_stream) to several
// requests at once, read by one RequestClient. Its REPLY_SESSIONS sessions of one Shared subscription
// sit on separate connections, and the broker deals a stream's chunks to them in turn: the small chunks
// overtake the big one (still being written on its connection), so taken in arrival order a call ended
// on its last chunk before the big one was read, the big one lost. serve() numbers each request's
// replies (`seq`) and the client puts them back in order. (Key_Shared, one session per request id, keeps
// the order but drops the small chunks: the broker gives them to the session whose connection still
// carries the big one, and drops a message its session cannot take at once, on a non-persistent topic.)
// Three streams: the broker drops what comes while every session is busy with a big chunk.
// The client is warmed up with one small call first: it opens its REPLY_SESSIONS sessions on the first
// reply numbered by its server, one before (unnumbered-replies.test.ts).
const TRANSPORTS: TransportKind[] = ["binary", "websocket"];
const REPLY_TIMEOUT_MS = 20_000;
const STREAMS = 3;
const BIG_CHUNK_CHARS = 4_000_000;
const SMALL_CHUNKS = 5;

describe.each(TRANSPORTS)("streams of a multi-megabyte chunk and small ones, several at once (%s transport)", (kind) => {
  let peer: PeerAndCaller;
  let server: PeerProcess;
  let caller: PeerAndCaller["caller"];

  beforeAll(async () => {
    peer = await startWarmGatedPeer("streamed-replies", kind, REPLY_TIMEOUT_MS);
    ({ server, caller } = peer);
  }, 60_000);

  afterAll(() => peer?.close());

  it(`each of ${STREAMS} streams comes whole and in order`, async () => {
    const from = server.logs.length;
    const streams = Array.from({ length: STREAMS }, (_, s) => {
      const chunks: string[] = [];
      const call = caller.request(
        { text: `stream-${s}`, replyChars: BIG_CHUNK_CHARS, chunks: SMALL_CHUNKS },
        {
          isLast: (reply) => reply.end_of_stream === true,
          onReply: (reply) => chunks.push(reply.text.length > 1_000 ? `${reply.text.length} chars` : reply.text),
        },
      );
      return call.then(
        () => chunks,
        (err: Error) => [...chunks, err.name],
      );
    });
    // Every request is in the server's hands before it streams, so the streams go out together.
    await server.waitForLog(new RegExp(`${STREAMS} requests in hand`), { from });
    server.signal("SIGUSR2");
    expect(await Promise.all(streams)).toEqual(
      Array.from({ length: STREAMS }, (_, s) => [
        `${BIG_CHUNK_CHARS} chars`,
        ...Array.from({ length: SMALL_CHUNKS }, (_, i) => `stream-${s}-${i + 1}`),
      ]),
    );
  }, 90_000);
});
