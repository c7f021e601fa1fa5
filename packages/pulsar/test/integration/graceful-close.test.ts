import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { clientOptions, type TransportKind, uniqueTopic, useBroker } from "@toolmesh/test-support";
import { PulsarClient, RequestClient, serve, type Subscription } from "../../src/index.js";

// A replica stopping gracefully (SIGTERM: the runtime closes its request subscriptions first) while its
// sibling keeps serving. Request topics are non-persistent: the broker never hands a message it already
// dispatched to the stopping replica to another one. So every request that reaches the stopping replica
// before the broker has closed its consumers must still be answered there, or the caller waits for nothing.
// The binary transport keeps a closed request consumer taking messages for a moment (closeLingerMs): the broker
// may write one just after confirming the close (2 runs of roughly 40-50 lost a call so before, 0 of 45 after).
// Over WebSocket every message the broker's WebSocket handler delivers is handled, but not one it is writing
// as the session closes: Pulsar drops it ("Failed to deliver msg to ... Session closed" in the broker log;
// non-persistent, so never redelivered) and its caller times out: one call of a run's 250-290, in 6 of 70
// runs on 2026-12-06. Before the close handled late deliveries, either transport lost 8 to 12 every run.
/** Calls the closing replica may lose, by transport: none on the binary protocol. */
const MAY_LOSE: Record<TransportKind, number> = { binary: 0, websocket: 2 };
const Request = z.object({ n: z.number() });
const Reply = z.object({ n: z.number(), by: z.string(), error: z.null().optional() });
const TRANSPORTS: TransportKind[] = ["binary", "websocket"];
/** Long enough that the stopping replica spends a while finishing its work in hand. */
const HANDLER_MS = 150;

describe.each(TRANSPORTS)("closing one of two replicas under load (%s transport)", (kind) => {
  const clients: PulsarClient[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
  });

  it("answers every request, none lost to the replica that stopped", async () => {
    const broker = await useBroker();
    const client = () => {
      const c = new PulsarClient(clientOptions(broker, kind));
      clients.push(c);
      return c;
    };
    const requestTopic = uniqueTopic("graceful", { namespace: "request" });
    const responseTopic = requestTopic.replace("/request/", "/response/");
    const replica = (name: string): Promise<Subscription> =>
      serve(client(), {
        requestTopic,
        responseTopic,
        subscription: "graceful-request",
        requestSchema: Request,
        errorReply: (error) => ({ n: -1, by: name, error }) as unknown as z.output<typeof Reply>,
        handler: async ({ n }) => {
          await new Promise((resolve) => setTimeout(resolve, HANDLER_MS));
          return { n, by: name, error: null };
        },
      });
    const stopping = await replica("a");
    await replica("b");
    const caller = await RequestClient.create(client(), { requestTopic, responseTopic, responseSchema: Reply, timeoutMs: 5_000 });

    let running = true;
    let next = 0;
    const answered: Record<string, number> = {};
    const lost: string[] = [];
    const worker = async () => {
      while (running) {
        const n = next++;
        try {
          const reply = await caller.request({ n });
          expect(reply.n).toBe(n);
          answered[reply.by] = (answered[reply.by] ?? 0) + 1;
        } catch (err) {
          lost.push(`${n}: ${(err as Error).message}`);
        }
      }
    };
    const workers = Array.from({ length: 24 }, worker);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await stopping.close();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    running = false;
    await Promise.all(workers);

    if (MAY_LOSE[kind] === 0) expect(lost, `${lost.length} of ${next} calls lost`).toEqual([]);
    else {
      expect(lost.length, `${lost.length} of ${next} calls lost:\n${lost.join("\n")}`).toBeLessThanOrEqual(MAY_LOSE[kind]);
      for (const failure of lost) expect(failure).toMatch(/: no reply on .* within 5000 ms/);
    }
    expect(answered.a).toBeGreaterThan(0);
    expect(answered.b).toBeGreaterThan(0);
  });
});
