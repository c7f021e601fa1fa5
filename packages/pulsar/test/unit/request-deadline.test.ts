import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryTransport, PulsarClient, RequestClient, readDeadline, serve } from "../../src/index.js";

const pulsar = new PulsarClient({ webServiceUrl: "memory://", transport: new MemoryTransport() });
afterAll(() => pulsar.close());

describe("a request's deadline", () => {
  it("counts from when the request leaves, not from when it was queued behind others", async () => {
    const arrivals: Array<{ deadline: number; at: number }> = [];
    await serve(pulsar, {
      requestTopic: "non-persistent://t/ns/slow-req",
      responseTopic: "non-persistent://t/ns/slow-res",
      subscription: "slow-request",
      requestSchema: z.object({ waitMs: z.number() }),
      errorReply: (error): { error: unknown } => ({ error }),
      handler: async (request, context) => {
        arrivals.push({ deadline: readDeadline(context.properties)!, at: Date.now() });
        await new Promise((resolve) => setTimeout(resolve, request.waitMs));
        return { error: null };
      },
    });
    // One request on the wire at a time: the second waits here until the first is answered (400 ms).
    const client = await RequestClient.create(pulsar, {
      requestTopic: "non-persistent://t/ns/slow-req",
      responseTopic: "non-persistent://t/ns/slow-res",
      responseSchema: z.object({ error: z.unknown() }),
      maxInFlight: 1,
      timeoutMs: 2_000,
    });
    await Promise.all([client.request({ waitMs: 400 }), client.request({ waitMs: 0 })]);
    await client.close();
    expect(arrivals).toHaveLength(2);
    // Had the deadline been set when the call was made, the second would arrive with about 1,600 ms left.
    for (const { deadline, at } of arrivals) expect(deadline - at).toBeGreaterThan(1_900);
  });
});
