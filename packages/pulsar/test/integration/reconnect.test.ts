import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolServiceRequest, ToolServiceResponse, type ToolServiceResponseWire } from "@toolmesh/schema";
import { clientOptions, privateBroker, type TransportKind, waitFor } from "@toolmesh/test-support";
import { PulsarClient, RequestClient, serve, type Subscription } from "../../src/index.js";

// A private broker on its own ports, so stopping it disturbs no other test.
const broker = privateBroker("pulsar/reconnect");
const TRANSPORTS: TransportKind[] = ["binary", "websocket"];

beforeAll(() => broker.start(), 180_000);
afterAll(async () => {
  await broker.discard();
});

/** A server and a caller on one transport, each on a client of its own, and a way to ask the server. */
async function echoPair(kind: TransportKind) {
  const requestTopic = `non-persistent://tg/request/restart-echo-${kind}`;
  const responseTopic = `non-persistent://tg/response/restart-echo-${kind}`;
  const serverClient = new PulsarClient({ ...clientOptions(broker, kind), pingIntervalMs: 2_000 });
  const callerClient = new PulsarClient({ ...clientOptions(broker, kind), pingIntervalMs: 2_000 });
  const server: Subscription = await serve(serverClient, {
    requestTopic,
    responseTopic,
    subscription: "restart-echo-request",
    requestSchema: ToolServiceRequest,
    errorReply: (error): ToolServiceResponseWire => ({ error, response: "", end_of_stream: true }),
    handler: async (request) => ({ error: null, response: `n=${String(request.arguments.n)}`, end_of_stream: true }),
  });
  const caller = await RequestClient.create(callerClient, { requestTopic, responseTopic, responseSchema: ToolServiceResponse });
  return {
    kind,
    ask: (n: number, timeoutMs = 5_000) =>
      caller.request(ToolServiceRequest.encode({ user: "u", config: {}, arguments: { n } }), { timeoutMs }),
    connected: () => serverClient.connected && callerClient.connected,
    disconnected: () => !serverClient.connected && !callerClient.connected,
    async close() {
      await caller.close();
      await server.close();
      await Promise.all([serverClient.close(), callerClient.close()]);
    },
  };
}

// Both transports go through the same crash: one broker restart (about 10 s) serves both.
describe("broker restart (binary and WebSocket transports)", () => {
  let pairs: Array<Awaited<ReturnType<typeof echoPair>>> = [];
  beforeAll(async () => {
    pairs = await Promise.all(TRANSPORTS.map(echoPair));
  });
  afterAll(async () => {
    await Promise.all(pairs.map((pair) => pair.close()));
  });

  it("reconnects producers and subscriptions by itself, and later requests succeed", async () => {
    for (const pair of pairs) {
      expect((await pair.ask(1)).response, pair.kind).toBe("n=1");
      expect(pair.connected(), pair.kind).toBe(true);
    }

    // A crash: the broker goes without closing anything (and without a clean stop's 10 s).
    await broker.stop({ kill: true });
    await waitFor(() => pairs.every((pair) => pair.disconnected()), { description: "clients to notice" });
    for (const pair of pairs) {
      await expect(pair.ask(2, 1_000), pair.kind).rejects.toThrow(/no reply on non-persistent:\/\/tg\/response\/restart-echo|confirm/);
    }

    await broker.start();
    for (const pair of pairs) {
      await waitFor(pair.connected, { timeoutMs: 60_000, description: `${pair.kind} clients to reconnect` });
      // Producers come back on their next send; the first call after the restart may race the re-subscription.
      await waitFor(async () => (await pair.ask(3, 2_000)).response === "n=3", { timeoutMs: 30_000, description: `a ${pair.kind} reply` });
      const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => pair.ask(100 + i)));
      expect(
        replies.map((r) => r.response),
        pair.kind,
      ).toEqual(Array.from({ length: 20 }, (_, i) => `n=${100 + i}`));
    }
  }, 180_000);
});
