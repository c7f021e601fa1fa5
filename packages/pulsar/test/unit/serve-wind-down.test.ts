import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryBroker, MemoryTransport, PulsarClient, RequestClient, serve } from "../../src/index.js";

// serve()'s wind-down signal lives as long as the service: each request listens to it only while it is
// being handled, so a service that never stops keeps nothing per request it answered.
describe("serve() with a wind-down signal that never fires", () => {
  it("leaves no listener on it once 200 single and 50 streamed requests are answered", async () => {
    const broker = new MemoryBroker();
    const server = new PulsarClient({ webServiceUrl: "memory://", transport: new MemoryTransport({ broker }) });
    const caller = new PulsarClient({ webServiceUrl: "memory://", transport: new MemoryTransport({ broker }) });
    const windDown = new AbortController();
    const Reply = z.object({ n: z.number(), last: z.boolean(), error: z.unknown().optional() });
    await serve(server, {
      requestTopic: "non-persistent://t/request/wd",
      responseTopic: "non-persistent://t/response/wd",
      subscription: "wd",
      requestSchema: z.object({ n: z.number(), stream: z.boolean() }),
      errorReply: (error) => ({ n: -1, last: true, error }),
      windDown: windDown.signal,
      handler: (request) =>
        request.stream
          ? (async function* () {
              yield { n: request.n, last: false };
              yield { n: request.n, last: true };
            })()
          : Promise.resolve({ n: request.n, last: true }),
    });
    const requests = await RequestClient.create(caller, {
      requestTopic: "non-persistent://t/request/wd",
      responseTopic: "non-persistent://t/response/wd",
      responseSchema: Reply,
    });
    const singles = Array.from({ length: 200 }, (_, n) => requests.request({ n, stream: false }));
    const streams = Array.from({ length: 50 }, (_, n) => requests.request({ n, stream: true }, { isLast: (reply) => reply.last }));
    const replies = await Promise.all([...singles, ...streams]);
    expect(replies.map((r) => r.n)).toEqual([...Array.from({ length: 200 }, (_, n) => n), ...Array.from({ length: 50 }, (_, n) => n)]);
    expect(getEventListeners(windDown.signal, "abort")).toHaveLength(0);
    await requests.close();
    await server.close();
    await caller.close();
  });
});
