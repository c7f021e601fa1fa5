import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { System } from "./system.js";

// Issue 12 item 3 on the whole system: a 4 MB argument (joke-service's reply would be ~8 MB) and a 7 MB
// one (over the gateway's body limit) each get a clear error, while 40 small calls made at the same time
// all succeed and the service stays ready: nothing is resent, no connection is torn down.
const system = new System();
// Over the WebSocket API, where item 3 was found (the proxy's frame limit). On the binary transport this
// same call still times out in the gateway instead of getting its too-large answer: open, see the note.
const ws = { PULSAR_TRANSPORT: "websocket" };

beforeAll(async () => {
  await system.start([
    ["config", ws],
    ["joke-service", { ...ws, JOKE_ANNOUNCE: "false" }],
    ["api-gateway", ws],
  ]);
  const set = await system.tg("set-tool-service", "--id", "joke-service", "--topic", "joke", "--config-param", "style");
  expect(set.code).toBe(0);
}, 120_000);
afterAll(() => system.stop());

/**
 * POST with node:http: the gateway answers 413 as soon as it reads the Content-Length, before the body is
 * sent, and fetch reports only the broken pipe; a raw request still reads the answer, as curl does.
 */
function rawPost(url: string, body: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: "POST", headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code !== "EPIPE" && err.code !== "ECONNRESET") reject(err);
    });
    req.end(body);
  });
}

const joke = (topic: string) =>
  system.call("joke-service", { user: "e2e", config: JSON.stringify({ style: "pun" }), arguments: JSON.stringify({ topic }) });

describe("oversized arguments through the gateway", () => {
  // Several megabytes through the WebSocket API (base64 in text frames) and zod, more than once: seconds
  // alone, but it has needed more than the default 30 s on a loaded 2-core CI machine. A bound, not a speed check.
  it("answers 4 MB and 7 MB arguments with too-large errors while 40 small calls succeed", async () => {
    const big = joke("x".repeat(4_000_000));
    const huge = rawPost(
      `${system.gatewayUrl}/api/v1/flow/default/service/joke-service`,
      JSON.stringify({ user: "e2e", config: "{}", arguments: JSON.stringify({ topic: "y".repeat(7_000_000) }) }),
    );
    const small = Array.from({ length: 40 }, (_, i) => joke(`cats ${i}`));
    const [bigReply, hugeReply, ...smallReplies] = await Promise.all([big, huge, ...small]);

    // The service's reply would be over the broker's limit: it answers a too-large error instead.
    expect(bigReply.status).toBe(200);
    const bigError = (bigReply.body as Array<{ error: { type: string; message: string } | null }>).at(-1)!.error;
    expect(bigError?.type).toBe("too-large");
    expect(bigError?.message).toMatch(/exceeds the message size limit of \d+ bytes/);
    // Over the gateway's own body limit: refused at the door.
    expect(hugeReply.status).toBe(413);
    expect(hugeReply.body).toEqual({ error: { type: "too-large", message: expect.stringMatching(/limit of \d+ bytes/) } });

    // Every small call gets its own joke. A small request or reply published while a 4 MB message is still
    // being written to a connection is dropped by the broker (non-persistent dispatch skips a consumer whose
    // connection is not writable) unless another session of the subscription sits on another connection:
    // serve() and RequestClient both open several (request-server.ts, request-client.ts).
    for (const [i, reply] of smallReplies.entries()) {
      expect(reply.status, `small call ${i}: ${JSON.stringify(reply.body)}`).toBe(200);
      expect((reply.body as Array<{ response: string }>)[0]!.response).toContain(`cats ${i}`);
    }
    const after = await joke("cats after");
    expect(after.status).toBe(200);
    expect((after.body as Array<{ response: string }>)[0]!.response).toContain("cats after");
    const ready = await fetch(`${system.get("joke-service").url}/readyz`);
    expect(ready.status).toBe(200);
  }, 120_000);
});
