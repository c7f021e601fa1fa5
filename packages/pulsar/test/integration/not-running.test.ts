import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { clientOptions, type TransportKind, uniqueTopic, useBroker } from "@toolmesh/test-support";
import { NotRunningError, PulsarClient, RequestClient, RequestTimeoutError, serve } from "../../src/index.js";

const Reply = z.object({ answer: z.string() });
const TRANSPORTS: TransportKind[] = ["binary", "websocket"];
const CHECK_MS = 300;
const replyTopic = (requestTopic: string) => requestTopic.replace("/request/", "/response/");

/**
 * A call to a service that is not running ends after the service check (the broker's topic stats), not
 * at its timeout; a running service, slow or winding down, and a persistent topic whose subscription keeps
 * the request, are left to answer or time out as before.
 */
describe.each(TRANSPORTS)("calls to a service that is not running, on the real broker (%s transport)", (kind) => {
  let options: ReturnType<typeof clientOptions>;
  let pulsar: PulsarClient;
  const callers: Array<RequestClient<typeof Reply>> = [];
  const caller = async (requestTopic: string) => {
    const client = await RequestClient.create(pulsar, {
      requestTopic,
      responseTopic: replyTopic(requestTopic),
      responseSchema: Reply,
      timeoutMs: 20_000,
    });
    callers.push(client);
    return client;
  };
  /** A service in a process of its own (its own client): `handler` answers each request. */
  const service = async (topic: string, handler: () => Promise<z.output<typeof Reply>>) => {
    const own = new PulsarClient(options);
    const subscription = await serve(own, {
      requestTopic: topic,
      responseTopic: replyTopic(topic),
      subscription: "the-service",
      requestSchema: z.object({}),
      errorReply: () => ({ answer: "error" }),
      handler,
    });
    return { client: own, subscription };
  };

  beforeAll(async () => {
    options = clientOptions(await useBroker(), kind);
    pulsar = new PulsarClient({ ...options, serviceCheckAfterMs: CHECK_MS });
  });
  afterAll(async () => {
    await Promise.all(callers.map((c) => c.close()));
    await pulsar.close();
  });

  it("fails with NotRunningError naming both topics when no service ever ran", async () => {
    const topic = uniqueTopic("nobody-home");
    const error = await (await caller(topic)).request({ q: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotRunningError);
    expect((error as NotRunningError).message).toMatch(
      new RegExp(
        `^nothing consumes ${topic} and nothing publishes on ${replyTopic(topic)}: request \\S+ had no reply after ${CHECK_MS} ms$`,
      ),
    );
  });

  it("fails the same way once the service that answered has stopped", async () => {
    const topic = uniqueTopic("stopped");
    const client = await caller(topic);
    const running = await service(topic, async () => ({ answer: "here" }));
    expect(await client.request({})).toEqual({ answer: "here" });
    await running.client.close();
    await expect(client.request({})).rejects.toBeInstanceOf(NotRunningError);
  });

  it("waits for a running service slower than the check", async () => {
    const topic = uniqueTopic("slow");
    const client = await caller(topic);
    const slow = await service(topic, async () => {
      await new Promise((resolve) => setTimeout(resolve, 4 * CHECK_MS));
      return { answer: "late but here" };
    });
    expect(await client.request({})).toEqual({ answer: "late but here" });
    await slow.client.close();
  });

  it("waits for an instance winding down: request consumer closed, reply producer still open", async () => {
    const topic = uniqueTopic("winding-down");
    const client = await caller(topic);
    let started!: () => void;
    const handling = new Promise<void>((resolve) => (started = resolve));
    const stopping = await service(topic, async () => {
      started();
      await new Promise((resolve) => setTimeout(resolve, 4 * CHECK_MS));
      return { answer: "finished while stopping" };
    });
    const call = client.request({});
    await handling;
    // Closing the subscription ends its consumer at once and waits for the request in hand.
    const closed = stopping.subscription.close();
    expect(await call).toEqual({ answer: "finished while stopping" });
    await closed;
    await stopping.client.close();
  });

  it("waits on a persistent topic whose durable subscription keeps the request for its service", async () => {
    const topic = uniqueTopic("kept", { persistence: "persistent" });
    // A service that subscribed once and is gone: its durable subscription stays, with no consumer.
    const gone = await pulsar.subscribe({ topic, subscription: "kept-service", type: "Shared" }, async () => undefined);
    await gone.close();
    const client = await caller(topic);
    await expect(client.request({}, { timeoutMs: 4 * CHECK_MS })).rejects.toBeInstanceOf(RequestTimeoutError);
  });
});
