import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PeerProcess, TransportKind } from "@toolmesh/test-support";
import { type PeerAndCaller, startWarmGatedPeer } from "./peer-caller.js";

// Small replies right behind multi-megabyte ones, to one RequestClient whose process is short of CPU (as
// on a loaded 2-core machine; here its thread blocked for a second, the same thing made certain). The
// response topic is non-persistent: the broker drops a reply when no session of the client's subscription
// can take it at once, and a session whose connection still carries a big reply cannot (Netty's channel
// is not writable until the client has read it; over the WebSocket API, until the proxy has). With the
// client's one session, the small replies arriving meanwhile were dropped and their calls timed out.
// The client is warmed up with one small call first: it opens its REPLY_SESSIONS sessions on the first
// reply numbered by its server (serve() numbers them), one before.
const TRANSPORTS: TransportKind[] = ["binary", "websocket"];
const REPLY_TIMEOUT_MS = 20_000;
const STALL_MS = 1_000;
// Each big reply left unread blocks the connection of the session it went to: 3 of them leave one of the
// client's REPLY_SESSIONS (4, each on its own connection, one Shared subscription) free for the small
// ones. That is the limit of the protection: a 4th big reply would leave none. (With Key_Shared, the
// session picked by each reply's key, this failed 4 runs of 4 on the binary transport, 1 of 4 on
// WebSocket: small replies keyed to a session still writing a big one were dropped.)
const BIG_REPLIES = 3;
const BIG_REPLY_CHARS = 4_000_000;
const SMALL_CALLS = 40;

/** Blocks this thread, as a descheduled process: nothing is read from any socket meanwhile. */
function stall(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

describe.each(TRANSPORTS)("small replies behind multi-megabyte ones, one client short of CPU (%s transport)", (kind) => {
  let peer: PeerAndCaller;
  let server: PeerProcess;
  let caller: PeerAndCaller["caller"];

  beforeAll(async () => {
    peer = await startWarmGatedPeer("big-replies", kind, REPLY_TIMEOUT_MS);
    ({ server, caller } = peer);
  }, 60_000);

  afterAll(() => peer?.close());

  it(`all ${SMALL_CALLS} small calls get their replies behind ${BIG_REPLIES} of ${BIG_REPLY_CHARS / 1_000_000} MB`, async () => {
    const from = server.logs.length;
    const bodies = [
      ...Array.from({ length: BIG_REPLIES }, (_, i) => ({ text: `big-${i}`, replyChars: BIG_REPLY_CHARS })),
      ...Array.from({ length: SMALL_CALLS }, (_, i) => ({ text: `small-${i}` })),
    ];
    const calls = bodies.map((body) =>
      caller.request(body).then(
        (reply) => (reply.text.length > 1_000 ? `${reply.text.length} chars` : reply.text),
        (err: Error) => err.name,
      ),
    );
    // Every request is in the server's hands before it answers; then this client reads nothing for a while.
    await server.waitForLog(new RegExp(`${bodies.length} requests in hand`), { from });
    server.signal("SIGUSR2");
    stall(STALL_MS);
    const outcomes = await Promise.all(calls);
    expect(outcomes).toEqual([
      ...Array.from({ length: BIG_REPLIES }, () => `${BIG_REPLY_CHARS} chars`),
      ...Array.from({ length: SMALL_CALLS }, (_, i) => `small-${i}`),
    ]);
  }, 90_000);
});
