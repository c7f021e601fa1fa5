import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolServiceRequest, ToolServiceResponse, type ToolServiceResponseWire, type WireError } from "@toolmesh/schema";
import { uniqueTopic, useBroker, waitFor } from "@toolmesh/test-support";
import { PulsarClient, RequestClient, serve, type RequestOutcome, type Subscription } from "../../src/index.js";

// A service stopping with requests still in hand (serve's `windDown`, which base's runtime aborts a
// little before SHUTDOWN_TIMEOUT_MS runs out): each is answered `unavailable` at once, and what its handler
// sends later never goes out, so the caller is told to retry instead of waiting for its own timeout.
type Reply = ToolServiceResponseWire;
const errorReply = (error: WireError): Reply => ({ error, response: "", end_of_stream: true });
const wire = (args: object) => ToolServiceRequest.encode({ user: "alice", config: {}, arguments: args as Record<string, unknown> });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let serverClient: PulsarClient;
let callerClient: PulsarClient;
let server: Subscription;
let caller: RequestClient<typeof ToolServiceResponse>;
const requestTopic = uniqueTopic("winding", { namespace: "request" });
const responseTopic = requestTopic.replace("/request/", "/response/");
const windDown = new AbortController();
const outcomes: RequestOutcome[] = [];
let started = 0;
/** Every reply on the response topic, by request id (a second subscription sees them all). */
const sent = new Map<string, Reply[]>();

beforeAll(async () => {
  const broker = await useBroker();
  serverClient = new PulsarClient(broker);
  callerClient = new PulsarClient(broker);
  server = await serve(serverClient, {
    requestTopic,
    responseTopic,
    subscription: "winding-request",
    requestSchema: ToolServiceRequest,
    errorReply,
    windDown: windDown.signal,
    onFinished: (outcome) => outcomes.push(outcome),
    handler: (request) => {
      started += 1;
      if (request.arguments.stream) {
        return (async function* () {
          yield { error: null, response: "first ", end_of_stream: false };
          await sleep(1_500);
          yield { error: null, response: "too late", end_of_stream: true };
        })();
      }
      return sleep(1_500).then(() => ({ error: null, response: "too late", end_of_stream: true }));
    },
  });
  await callerClient.subscribe({ topic: responseTopic, subscription: "watch-replies", type: "Shared" }, async (m) => {
    const id = m.properties.id!;
    sent.set(id, [...(sent.get(id) ?? []), JSON.parse(m.payload.toString()) as Reply]);
  });
  caller = await RequestClient.create(callerClient, { requestTopic, responseTopic, responseSchema: ToolServiceResponse });
});

afterAll(async () => {
  await caller?.close();
  await server?.close();
  await serverClient?.close();
  await callerClient?.close();
});

describe("requests in hand when the service winds down", () => {
  it("are answered 'unavailable ... retry' at once, a stream after the chunks already sent; nothing the handlers send later goes out", async () => {
    const chunks: string[] = [];
    const single = caller.request(wire({}), { timeoutMs: 10_000 });
    const stream = caller.request(wire({ stream: true }), {
      timeoutMs: 10_000,
      isLast: (reply) => reply.end_of_stream || reply.error !== null,
      onReply: (reply) => void (reply.error === null && chunks.push(reply.response)),
    });
    await waitFor(() => started === 2 && chunks.length === 1, { description: "both handlers running, the first chunk out" });
    const cut = Date.now();
    windDown.abort();
    const [one, two] = await Promise.all([single, stream]);
    // Answered at the wind-down, not when the handlers finish (1.5 s).
    expect(Date.now() - cut).toBeLessThan(1_000);
    for (const reply of [one, two]) {
      expect(reply.error).toEqual({
        type: "unavailable",
        message: `${requestTopic}: the service instance is stopping and cut this request short before its shutdown timeout (SHUTDOWN_TIMEOUT_MS); retry`,
      });
    }
    expect(chunks).toEqual(["first "]);
    // Counted once the error reply's send is confirmed, which may come just after the caller has it.
    await expect.poll(() => outcomes).toEqual(["cut-short", "cut-short"]);

    // The handlers end later; none of what they make is sent.
    await sleep(2_500);
    const replies = [...sent.values()];
    expect(replies.map((r) => r.length).sort()).toEqual([1, 2]);
    expect(replies.flat().filter((r) => r.response === "too late")).toEqual([]);
  });

  it("answers a request arriving after the wind-down (a replica still draining its queue) the same way", async () => {
    const before = started;
    const reply = await caller.request(wire({}), { timeoutMs: 10_000 });
    expect(started).toBe(before + 1);
    expect(reply.error?.type).toBe("unavailable");
  });
});
