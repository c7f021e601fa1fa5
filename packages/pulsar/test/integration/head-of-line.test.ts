import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PeerProcess, uniqueTopic } from "@toolmesh/test-support";
import { type PeerAndCaller, startPeerAndCaller } from "./peer-caller.js";

// Small requests right behind a multi-megabyte one, to a server whose process is short of CPU (as on a
// loaded 2-core CI machine; here stopped with SIGSTOP for half a second, the same thing made certain).
// The request topic is non-persistent: the broker drops a message when no session of the subscription
// can take it at once, and a session whose connection still carries the big message cannot (Netty's
// channel is not writable until the server has read it). With every session on one connection, the
// small requests arriving meanwhile were dropped and their calls timed out; with the Shared
// subscription's sessions on separate connections, another session takes them.
const REPLY_TIMEOUT_MS = 15_000;
const STALL_MS = 500;
let peer: PeerAndCaller;
let server: PeerProcess;
let caller: PeerAndCaller["caller"];

beforeAll(async () => {
  peer = await startPeerAndCaller("echo-server.mjs", "echo server", {
    requestTopic: uniqueTopic("head-of-line", { namespace: "request" }),
    kind: "binary",
    timeoutMs: REPLY_TIMEOUT_MS,
  });
  ({ server, caller } = peer);
}, 60_000);

afterAll(() => peer?.close());

/** Sends one big request and 40 small ones at once while the server is stalled; every outcome, in order. */
async function burstBehind(bigChars: number): Promise<string[]> {
  server.signal("SIGSTOP");
  const resume = setTimeout(() => server.signal("SIGCONT"), STALL_MS);
  try {
    const calls = [{ text: "x".repeat(bigChars) }, ...Array.from({ length: 40 }, (_, i) => ({ text: `small-${i}` }))].map((body) =>
      caller.request(body).then(
        (reply) => reply.text,
        (err: Error) => err.name,
      ),
    );
    return await Promise.all(calls);
  } finally {
    clearTimeout(resume);
    server.signal("SIGCONT");
  }
}

describe("small requests behind a multi-megabyte one, binary transport, server short of CPU", () => {
  for (const bigChars of [4_000_000, 6_000_000]) {
    it(`all get their replies before the client's timeout (behind ${bigChars / 1_000_000} MB)`, async () => {
      const outcomes = await burstBehind(bigChars);
      expect(outcomes).toEqual([`${bigChars} chars`, ...Array.from({ length: 40 }, (_, i) => `small-${i}`)]);
    }, 60_000);
  }
});
