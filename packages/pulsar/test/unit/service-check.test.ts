import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ServiceCheck,
  MemoryTransport,
  NotRunningError,
  PulsarClient,
  RequestClient,
  RequestTimeoutError,
  type StatsRead,
  serve,
} from "../../src/index.js";

const quiet = pino({ level: "silent" });
const NP = "non-persistent://t/request/tool";
const P = "persistent://t/request/tool";
const REPLIES = "non-persistent://t/response/tool";

/** A stats reader answering from `answers` by topic (absent when not listed), counting the reads. */
function reader(answers: Record<string, StatsRead>) {
  const reads: string[] = [];
  return {
    reads,
    read: async (topic: string): Promise<StatsRead> => {
      reads.push(topic);
      return answers[topic] ?? { kind: "absent" };
    },
  };
}
const stats = (subscriptions: Record<string, number>, publishers = 0): StatsRead => ({
  kind: "stats",
  stats: {
    msgInCounter: 1,
    publishers: Array.from({ length: publishers }, (_, i) => ({ producerName: `p${i}` })),
    subscriptions: Object.fromEntries(
      Object.entries(subscriptions).map(([name, consumers]) => [
        name,
        { msgOutCounter: 0, consumers: Array.from({ length: consumers }, (_, i) => ({ consumerName: `c${i}` })) },
      ]),
    ),
  },
});
const replying = stats({ client: 1 }, 1);
const silent = stats({ client: 1 }, 0);

describe("ServiceCheck: whether a request's service runs at all", () => {
  it.each<[string, string, Record<string, StatsRead>, boolean]>([
    ["a non-persistent request topic the broker has not loaded, no reply producer", NP, { [REPLIES]: silent }, true],
    ["a non-persistent request topic with no subscription", NP, { [NP]: stats({}), [REPLIES]: silent }, true],
    ["a non-persistent request topic whose subscriptions have no consumer", NP, { [NP]: stats({ a: 0, b: 0 }), [REPLIES]: silent }, true],
    ["a consumer on one subscription", NP, { [NP]: stats({ a: 0, b: 1 }), [REPLIES]: silent }, false],
    ["no consumer, but a producer on the response topic (an instance winding down)", NP, { [NP]: stats({}), [REPLIES]: replying }, false],
    ["a persistent request topic with no subscription", P, { [P]: stats({}), [REPLIES]: silent }, true],
    [
      "a persistent request topic with a durable subscription and no consumer (it keeps the request)",
      P,
      { [P]: stats({ a: 0 }), [REPLIES]: silent },
      false,
    ],
    [
      "an admin API that refuses the stats (cannot tell: keep waiting)",
      NP,
      { [NP]: { kind: "refused", status: 403 }, [REPLIES]: silent },
      false,
    ],
    [
      "an admin API that cannot be reached (cannot tell)",
      NP,
      { [NP]: { kind: "failed", reason: "ECONNREFUSED" }, [REPLIES]: silent },
      false,
    ],
    [
      "response-topic stats that cannot be read (cannot tell)",
      NP,
      { [NP]: stats({}), [REPLIES]: { kind: "failed", reason: "HTTP 500" } },
      false,
    ],
  ])("%s: not running = %s", async (_, requestTopic, answers, notRunning) => {
    expect(await new ServiceCheck(reader(answers), quiet, 100).notRunning(requestTopic, REPLIES)).toBe(notRunning);
  });

  it("asks the broker once per topic for a burst of calls", async () => {
    const stub = reader({});
    const check = new ServiceCheck(stub, quiet, 100);
    await Promise.all(Array.from({ length: 50 }, () => check.notRunning(NP, REPLIES)));
    await check.notRunning("non-persistent://t/request/other", REPLIES);
    expect(stub.reads).toEqual([NP, REPLIES, "non-persistent://t/request/other"]);
  });
});

describe("a request client with a service check (in-memory transport)", () => {
  const clients: PulsarClient[] = [];
  afterAll(() => Promise.all(clients.map((c) => c.close())));
  const requestClient = async (check: ServiceCheck, topic: string) => {
    const pulsar = new PulsarClient({ webServiceUrl: "memory://", transport: new MemoryTransport(), serviceCheck: check });
    clients.push(pulsar);
    const client = await RequestClient.create(pulsar, {
      requestTopic: `non-persistent://t/ns/${topic}-req`,
      responseTopic: `non-persistent://t/ns/${topic}-res`,
      responseSchema: z.object({ ok: z.boolean() }),
    });
    return { pulsar, client };
  };

  it("ends a call with no reply once the broker shows no instance of its service, naming both topics", async () => {
    const stub = reader({});
    const { client } = await requestClient(new ServiceCheck(stub, quiet, 50), "gone");
    const error = await client.request({}, { timeoutMs: 10_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotRunningError);
    expect((error as Error).message).toBe(
      "nothing consumes non-persistent://t/ns/gone-req and nothing publishes on non-persistent://t/ns/gone-res: " +
        `request ${(error as NotRunningError).requestId} had no reply after 50 ms`,
    );
    expect(stub.reads).toEqual(["non-persistent://t/ns/gone-req", "non-persistent://t/ns/gone-res"]);
    expect(client.inFlight).toBe(0);
  });

  it("keeps waiting (to the timeout) when the broker lists a consumer", async () => {
    const stub = reader({ "non-persistent://t/ns/busy-req": stats({ svc: 1 }) });
    const { client } = await requestClient(new ServiceCheck(stub, quiet, 50), "busy");
    await expect(client.request({}, { timeoutMs: 300 })).rejects.toBeInstanceOf(RequestTimeoutError);
    expect(stub.reads).toHaveLength(2);
  });

  it("never asks about a call answered before the check, nor one whose timeout comes first", async () => {
    const stub = reader({});
    const { pulsar, client } = await requestClient(new ServiceCheck(stub, quiet, 200), "quick");
    await serve(pulsar, {
      requestTopic: "non-persistent://t/ns/quick-req",
      responseTopic: "non-persistent://t/ns/quick-res",
      subscription: "quick",
      requestSchema: z.object({ waitMs: z.number().default(0) }),
      errorReply: () => ({ ok: false }),
      handler: async ({ waitMs }) => {
        await new Promise((resolve) => setTimeout(resolve, waitMs));
        return { ok: true };
      },
    });
    expect(await client.request({})).toEqual({ ok: true });
    await expect(client.request({ waitMs: 500 }, { timeoutMs: 150 })).rejects.toBeInstanceOf(RequestTimeoutError);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stub.reads).toEqual([]);
  });
});
