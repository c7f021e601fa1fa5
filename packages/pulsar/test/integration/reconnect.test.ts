import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolServiceRequest, ToolServiceResponse, type ToolServiceResponseWire } from "@toolmesh/schema";
import { BrokerInstance, clientOptions, type TransportKind, waitFor } from "@toolmesh/test-support";
import { PulsarClient, RequestClient, serve, type Subscription } from "../../src/index.js";

// A private broker on its own ports, so stopping it disturbs no other test.
const home = join(tmpdir(), `toolmesh-restart-${process.pid}`);
const broker = new BrokerInstance({ home, webPort: 28380, brokerPort: 26950, bookiePort: 23481 });
const TRANSPORTS: TransportKind[] = ["binary", "websocket"];

beforeAll(() => broker.start(), 180_000);
afterAll(async () => {
  await broker.discard();
});

describe.each(TRANSPORTS)("broker restart (%s transport)", (kind) => {
  const requestTopic = `non-persistent://tg/request/restart-echo-${kind}`;
  const responseTopic = `non-persistent://tg/response/restart-echo-${kind}`;
  let serverClient: PulsarClient;
  let callerClient: PulsarClient;
  let server: Subscription;
  let caller: RequestClient<typeof ToolServiceResponse>;

  const ask = (n: number, timeoutMs = 5_000) =>
    caller.request(ToolServiceRequest.encode({ user: "u", config: {}, arguments: { n } }), { timeoutMs });

  beforeAll(async () => {
    serverClient = new PulsarClient({ ...clientOptions(broker, kind), pingIntervalMs: 2_000 });
    callerClient = new PulsarClient({ ...clientOptions(broker, kind), pingIntervalMs: 2_000 });
    server = await serve(serverClient, {
      requestTopic,
      responseTopic,
      subscription: "restart-echo-request",
      requestSchema: ToolServiceRequest,
      errorReply: (error): ToolServiceResponseWire => ({ error, response: "", end_of_stream: true }),
      handler: async (request) => ({ error: null, response: `n=${String(request.arguments.n)}`, end_of_stream: true }),
    });
    caller = await RequestClient.create(callerClient, { requestTopic, responseTopic, responseSchema: ToolServiceResponse });
  });

  afterAll(async () => {
    await caller?.close();
    await server?.close();
    await Promise.all([serverClient?.close(), callerClient?.close()]);
  });

  describe("recovery", () => {
    it("reconnects producers and subscriptions by itself, and later requests succeed", async () => {
      expect((await ask(1)).response).toBe("n=1");
      expect(serverClient.connected && callerClient.connected).toBe(true);

      // A crash: the broker goes without closing anything (and without a clean stop's 10 s).
      await broker.stop({ kill: true });
      await waitFor(() => !serverClient.connected && !callerClient.connected, { description: "clients to notice" });
      await expect(ask(2, 1_000)).rejects.toThrow(/no reply on non-persistent:\/\/tg\/response\/restart-echo|confirm/);

      await broker.start();
      await waitFor(() => serverClient.connected && callerClient.connected, {
        timeoutMs: 60_000,
        description: "clients to reconnect",
      });
      // Producers come back on their next send; the first call after the restart may race the re-subscription.
      await waitFor(async () => (await ask(3, 2_000)).response === "n=3", { timeoutMs: 30_000, description: "a reply" });
      const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => ask(100 + i)));
      expect(replies.map((r) => r.response)).toEqual(Array.from({ length: 20 }, (_, i) => `n=${100 + i}`));
    }, 180_000);
  });
});
