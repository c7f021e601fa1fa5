import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolServiceRequest, ToolServiceResponse, type ToolServiceResponseWire } from "@toolmesh/schema";
import { uniqueTopic, useBroker, waitFor } from "@toolmesh/test-support";
import {
  BrokerDrops,
  PulsarClient,
  RequestClient,
  RequestTimeoutError,
  serve,
  type RequestContext,
  type SkipReason,
  type Subscription,
} from "../../src/index.js";

let webServiceUrl: string;
let serverClient: PulsarClient;
let callerClient: PulsarClient;

beforeAll(async () => {
  webServiceUrl = (await useBroker()).webServiceUrl;
  serverClient = new PulsarClient({ webServiceUrl });
  callerClient = new PulsarClient({ webServiceUrl });
});

afterAll(async () => {
  await serverClient?.close();
  await callerClient?.close();
});

const wire = (args: Record<string, unknown>) => ToolServiceRequest.encode({ user: "u", config: {}, arguments: args });

/** A server whose handler waits until `release()`: requests pile up in its backlog meanwhile. */
async function gatedServer(maxBacklog: number) {
  const requestTopic = uniqueTopic("gated", { namespace: "request" });
  const responseTopic = requestTopic.replace("/request/", "/response/");
  let open: () => void = () => {};
  const gate = new Promise<void>((r) => (open = r));
  const handled: Array<{ args: Record<string, unknown>; context: RequestContext }> = [];
  const skipped: SkipReason[] = [];
  const entered: unknown[] = [];
  const server: Subscription = await serve(serverClient, {
    requestTopic,
    responseTopic,
    subscription: "gated-request",
    requestSchema: ToolServiceRequest,
    errorReply: (error): ToolServiceResponseWire => ({ error, response: "", end_of_stream: true }),
    concurrency: 1,
    maxBacklog,
    onSkipped: (reason) => skipped.push(reason),
    handler: async (request, context) => {
      entered.push(request.arguments.i);
      await gate;
      handled.push({ args: request.arguments, context });
      return { error: null, response: `done ${String(request.arguments.i)}`, end_of_stream: true };
    },
  });
  const caller = await RequestClient.create(callerClient, {
    requestTopic,
    responseTopic,
    responseSchema: ToolServiceResponse,
    timeoutMs: 15_000,
  });
  return { server, caller, handled, skipped, entered, release: () => open(), requestTopic };
}

describe("a request server's backlog", () => {
  it("answers `overloaded` at once past its backlog, and every request of the burst gets an answer", async () => {
    const { server, caller, handled, skipped, release } = await gatedServer(5);
    const ends = Array.from({ length: 50 }, (_, i) =>
      caller.request(wire({ i })).then(
        (r) => (r.error ? r.error.type : "answered"),
        (err: Error) => (err instanceof RequestTimeoutError ? "timed-out" : err.name),
      ),
    );
    // 1 in the handler + 4 waiting fill the backlog of 5: the other 45 are answered while the gate is shut.
    await waitFor(() => skipped.length === 45 && caller.inFlight === 5, { description: "45 overloaded answers" }).finally(release);
    const counts: Record<string, number> = {};
    for (const end of await Promise.all(ends)) counts[end] = (counts[end] ?? 0) + 1;
    expect(counts).toEqual({ answered: 5, overloaded: 45 });
    expect(handled).toHaveLength(5);
    await waitFor(() => server.backlog === 0, { description: "an empty backlog" });
    const overloaded = await caller.request(wire({ i: "after" }));
    expect(overloaded.response).toBe("done after");
    await caller.close();
    await server.close();
  });

  it("names the topic and its limit in the overloaded error", async () => {
    const { server, caller, release, entered, requestTopic } = await gatedServer(1);
    const first = caller.request(wire({ i: 1 }));
    await waitFor(() => entered.length === 1, { description: "the first request in the handler" });
    const second = await caller.request(wire({ i: 2 }));
    expect(second.error).toEqual({ type: "overloaded", message: `${requestTopic} has 1 requests in hand, its limit; retry later` });
    release();
    expect((await first).response).toBe("done 1");
    await caller.close();
    await server.close();
  });

  it("carries each request's deadline and skips a request whose deadline passed while it waited", async () => {
    const { server, caller, handled, skipped, entered, release } = await gatedServer(10);
    const sentAt = Date.now();
    const first = caller.request(wire({ i: 1 }), { timeoutMs: 15_000 });
    await waitFor(() => entered.length === 1, { description: "the first request in the handler" });
    // Waits behind the first; its caller gives up after 300 ms, long before the gate opens.
    await expect(caller.request(wire({ i: 2 }), { timeoutMs: 300 })).rejects.toBeInstanceOf(RequestTimeoutError);
    release();
    expect((await first).response).toBe("done 1");
    await waitFor(() => skipped.includes("expired"), { description: "the expired request to be skipped" });
    expect(handled.map((h) => h.args.i)).toEqual([1]);
    const deadline = Number(handled[0]!.context.properties.deadline);
    expect(deadline).toBeGreaterThanOrEqual(sentAt + 15_000);
    expect(deadline).toBeLessThanOrEqual(Date.now() + 15_000);
    await caller.close();
    await server.close();
  });
});

describe("drops the broker reports", () => {
  it("counts exactly the messages a subscription never got in a burst larger than its receiver queues", async () => {
    const topic = uniqueTopic("drops", { namespace: "flow" });
    let received = 0;
    const subscription = await serverClient.subscribe({ topic, subscription: "slow-reader", type: "Shared" }, async () => {
      received += 1;
    });
    const counted = new Map<string, number>();
    const drops = new BrokerDrops({
      webServiceUrl,
      subscriptions: () => serverClient.subscriptionNames.filter((s) => s.topic === topic),
      onDropped: (t, s, n) => counted.set(`${t} ${s}`, (counted.get(`${t} ${s}`) ?? 0) + n),
      logger: serverClient.logger,
      intervalMs: 0,
    });
    await drops.poll(); // counting starts here
    expect(counted.get(`${topic} slow-reader`)).toBe(0);
    const senders = await Promise.all(Array.from({ length: 4 }, () => new PulsarClient({ webServiceUrl })));
    await Promise.all(senders.flatMap((s, p) => Array.from({ length: 1_000 }, (_, i) => s.sendJson(topic, { p, i }))));
    // Settled when nothing more arrives for a while.
    let last = -1;
    await waitFor(
      () => {
        const settled = received === last;
        last = received;
        return settled;
      },
      { intervalMs: 500, timeoutMs: 30_000, description: "the reader to settle" },
    );
    await drops.poll();
    const dropped = counted.get(`${topic} slow-reader`) ?? 0;
    expect(received).toBeLessThan(4_000);
    expect(dropped).toBe(4_000 - received);
    await Promise.all(senders.map((s) => s.close()));
    await subscription.close();
  });
});
