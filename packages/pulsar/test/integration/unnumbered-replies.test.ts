import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientOptions, type TransportKind, uniqueTopic, useBroker, waitFor } from "@toolmesh/test-support";
import { PulsarClient, REPLY_SESSIONS } from "../../src/index.js";
import { type PeerAndCaller, startPeerAndCaller, warmUp } from "./peer-caller.js";

// A RequestClient reads replies with one session until its server numbers them (`seq`, as serve() does),
// then with REPLY_SESSIONS. A server that numbers none (TrustGraph's Python services; here the gated
// server with REPLY_SEQ=none) must keep it at one: Shared sessions do not keep order, and an unnumbered
// stream cannot be put back in order — with several, the small chunks overtook the big one still being
// written on another connection, and the call ended before the big chunk was read.
const TRANSPORTS: TransportKind[] = ["binary", "websocket"];
const REPLY_TIMEOUT_MS = 20_000;
// Big enough that with 4 sessions the small chunks overtake it (the old code failed 7 of 8 runs, each
// run failing on at least one transport), small enough that one session does not drop the chunks right
// behind it, the head-of-line limit a server without `seq` keeps: one session dropped one behind 1 MB in
// 2 runs of 6, behind 200 KB in 1 of 7 (CPU-loaded), behind 50 KB in none of 11.
const BIG_CHUNK_CHARS = 50_000;
const SMALL_CHUNKS = 5;

const gatedPeer = (name: string, kind: TransportKind, env: Record<string, string> = {}) =>
  startPeerAndCaller("gated-reply-server.mjs", "gated reply server", {
    requestTopic: uniqueTopic(name, { namespace: "request" }),
    kind,
    timeoutMs: REPLY_TIMEOUT_MS,
    env,
  });

/** One stream from the gated server: its chunks as they reach the caller (big ones by their size). */
async function streamed(peer: PeerAndCaller, text: string): Promise<string[]> {
  const from = peer.server.logs.length;
  const chunks: string[] = [];
  const call = peer.caller.request(
    { text, replyChars: BIG_CHUNK_CHARS, chunks: SMALL_CHUNKS },
    {
      isLast: (reply) => reply.end_of_stream === true,
      onReply: (reply) => chunks.push(reply.text.length > 1_000 ? `${reply.text.length} chars` : reply.text),
    },
  );
  await peer.server.waitForLog(/1 requests in hand/, { from });
  peer.server.signal("SIGUSR2");
  return call.then(
    () => chunks,
    (err: Error) => [...chunks, err.name],
  );
}

const whole = (text: string) => [`${BIG_CHUNK_CHARS} chars`, ...Array.from({ length: SMALL_CHUNKS }, (_, i) => `${text}-${i + 1}`)];

describe.each(TRANSPORTS)("reply sessions that follow the server (%s transport)", (kind) => {
  describe("a server that does not number its replies (as TrustGraph's)", () => {
    let peer: PeerAndCaller;

    beforeAll(async () => {
      peer = await gatedPeer(`unnumbered-${kind}`, kind, { REPLY_SEQ: "none" });
    }, 60_000);

    afterAll(() => peer?.close());

    it("keeps the client at one session, its streams in order", async () => {
      await warmUp(peer, 1);
      for (const text of ["stream-a", "stream-b", "stream-c"]) expect(await streamed(peer, text)).toEqual(whole(text));
      expect(peer.caller.replySessions).toBe(1);
      expect(await peer.replySessions()).toBe(1);
    }, 90_000);
  });

  describe("a server that numbers its replies (serve())", () => {
    let peer: PeerAndCaller;

    beforeAll(async () => {
      peer = await gatedPeer(`numbered-${kind}`, kind);
    }, 60_000);

    afterAll(() => peer?.close());

    it(`has the client open ${REPLY_SESSIONS} sessions after its first reply, and go back to one for good on an unnumbered reply`, async () => {
      expect(await peer.replySessions()).toBe(1);
      await warmUp(peer, REPLY_SESSIONS);
      expect(peer.caller.replySessions).toBe(REPLY_SESSIONS);
      expect(await streamed(peer, "numbered")).toEqual(whole("numbered"));

      // Another kind of server on the same topic: a reply without `seq` (to nobody's request here).
      const other = new PulsarClient(clientOptions(await useBroker(), kind));
      try {
        await other.sendJson(peer.responseTopic, { error: null, text: "unnumbered" }, { id: "someone-else" });
      } finally {
        await other.close();
      }
      await waitFor(async () => (await peer.replySessions()) === 1, { description: "the extra reply sessions to close" });
      expect(peer.caller.replySessions).toBe(1);
      // ... and it stays at one, numbered replies or not.
      expect(await streamed(peer, "after")).toEqual(whole("after"));
      expect(peer.caller.replySessions).toBe(1);
      expect(await peer.replySessions()).toBe(1);
    }, 90_000);
  });
});
