import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolServiceRequest, ToolServiceResponse, type ToolServiceResponseWire } from "@toolmesh/schema";
import { uniqueTopic, useBroker, waitFor } from "@toolmesh/test-support";
import { MessageTooLargeError, PulsarClient, RequestClient, serve, type IncomingMessage, type Subscription } from "../../src/index.js";

// The test broker runs with toolmesh's settings (maxMessageSize 6 MiB, webSocketMaxTextFrameSize 10 MiB),
// which are the WebSocket transport's defaults.
let serverClient: PulsarClient;
let callerClient: PulsarClient;
let server: Subscription;
let caller: RequestClient<typeof ToolServiceResponse>;
const requestTopic = uniqueTopic("sizes", { namespace: "request" });
const responseTopic = requestTopic.replace("/request/", "/response/");
let handled = 0;

/** Every false seen here is a moment one of the clients had lost a session. */
const linkStates: boolean[] = [];
let sampler: NodeJS.Timeout;

beforeAll(async () => {
  const broker = await useBroker();
  serverClient = new PulsarClient({ webServiceUrl: broker.webServiceUrl });
  callerClient = new PulsarClient({ webServiceUrl: broker.webServiceUrl });
  server = await serve(serverClient, {
    requestTopic,
    responseTopic,
    subscription: "sizes-request",
    requestSchema: ToolServiceRequest,
    errorReply: (error): ToolServiceResponseWire => ({ error, response: "", end_of_stream: true }),
    handler: (request) => {
      handled += 1;
      const { text, times, chunks } = request.arguments as { text: string; times?: number; chunks?: number[] };
      if (chunks) {
        return (async function* () {
          for (const [i, n] of chunks.entries()) yield { error: null, response: text.repeat(n), end_of_stream: i === chunks.length - 1 };
        })();
      }
      return Promise.resolve({ error: null, response: text.repeat(times ?? 1), end_of_stream: true });
    },
  });
  caller = await RequestClient.create(callerClient, {
    requestTopic,
    responseTopic,
    responseSchema: ToolServiceResponse,
    timeoutMs: 20_000,
  });
  sampler = setInterval(() => linkStates.push(serverClient.connected && callerClient.connected), 20);
});

afterAll(async () => {
  clearInterval(sampler);
  await caller?.close();
  await server?.close();
  await serverClient?.close();
  await callerClient?.close();
});

const ask = (args: Record<string, unknown>) =>
  caller.request(ToolServiceRequest.encode({ user: "u", config: {}, arguments: args }), {
    isLast: (r) => r.end_of_stream || r.error !== null,
  });

describe("messages over the broker's size limit", () => {
  it("are refused before sending, naming topic, size and limit; the same producer then sends the next one", async () => {
    // Persistent: a non-persistent topic may drop a message while the reader's connection is still
    // writing the one before it (a 6 MiB one takes a while), which is the broker's choice, not a size check.
    const topic = uniqueTopic("raw-size", { persistence: "persistent", namespace: "flow" });
    const received: IncomingMessage[] = [];
    const sub = await callerClient.subscribe({ topic, subscription: "reader", type: "Exclusive" }, async (m) => {
      received.push(m);
    });
    const limit = callerClient.maxMessageSize;
    expect(limit).toBe(6 * 1024 * 1024 - 1024);
    const error = await callerClient.send(topic, Buffer.alloc(limit + 1, 120)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MessageTooLargeError);
    expect((error as Error).message).toBe(`a message of ${limit + 1} bytes for ${topic} exceeds the limit of ${limit} bytes`);
    // The limit is the broker's real one, not a guess far below it: a message of exactly the limit passes.
    await callerClient.send(topic, Buffer.alloc(limit, 121));
    await callerClient.send(topic, Buffer.from("small"));
    // A 6 MiB entry is the bookie's largest write: on a broker just started, under load, it can take long.
    await waitFor(() => received.length === 2, { timeoutMs: 90_000, description: "the full-size and the small message" });
    expect(received.map((m) => m.payload.length)).toEqual([limit, 5]);
    await sub.close();
  }, 120_000); // above the wait, so a slow bookie fails with the wait's description, not a bare test timeout

  it("answers a reply over the limit with a too-large error naming the limit and the topic, while 40 small calls pass", async () => {
    const big = ask({ text: "x".repeat(4_000_000), times: 2 }); // an 8 MB reply, as joke-service gives to a 4 MB topic
    const small = Array.from({ length: 40 }, (_, i) => ask({ text: `small-${i}` }));
    const reply = await big;
    expect(reply.error?.type).toBe("too-large");
    expect(reply.error?.message).toContain(`exceeds the message size limit of ${serverClient.maxMessageSize} bytes`);
    expect(reply.error?.message).toContain(requestTopic);
    expect((await Promise.all(small)).map((r) => r.response)).toEqual(Array.from({ length: 40 }, (_, i) => `small-${i}`));
  });

  it("ends a stream whose chunk is over the limit with a too-large error after the chunks that fit", async () => {
    const replies: ToolServiceResponseWire[] = [];
    const last = await caller.request(
      ToolServiceRequest.encode({ user: "u", config: {}, arguments: { text: "y", chunks: [3, 7_000_000, 2] } }),
      {
        isLast: (r) => r.end_of_stream || r.error !== null,
        onReply: (r) => replies.push(r),
      },
    );
    expect(replies.map((r) => [r.response, r.error?.type ?? null])).toEqual([
      ["yyy", null],
      ["", "too-large"],
    ]);
    expect(last.error?.type).toBe("too-large");
  });

  it("refuses a request over the limit at once, without sending it", async () => {
    const before = handled;
    const error = await ask({ text: "z".repeat(7_000_000) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MessageTooLargeError);
    expect((error as Error).message).toMatch(
      new RegExp(`^a request of \\d+ bytes for ${requestTopic} exceeds the limit of ${callerClient.maxMessageSize} bytes$`),
    );
    expect(caller.inFlight).toBe(0);
    expect((await ask({ text: "after" })).response).toBe("after");
    expect(handled).toBe(before + 1);
  });

  it("never cost either client its sessions", () => {
    expect(linkStates.length).toBeGreaterThan(0);
    expect(linkStates.every(Boolean)).toBe(true);
  });
});
