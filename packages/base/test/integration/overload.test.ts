import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pino from "pino";
import { PulsarClient, RequestTimeoutError } from "@toolmesh/pulsar";
import { useBroker, waitFor, requestTopic, serviceTopics } from "@toolmesh/test-support";
import {
  EmbeddedEnv,
  DynamicToolService,
  ServiceRuntime,
  ToolServiceClient,
  ToolServiceError,
  parseEnv,
  type ToolResult,
} from "../../src/index.js";

// Issue 12, items 3 and 5, on the real broker: messages over the size limit get a clear error without
// costing anyone else their calls or the service its readiness; a burst past the backlog is answered
// `overloaded`, and /metrics accounts for every request.

/** Repeats the topic twice, as joke-service's fallback template does: a 4 MB topic makes an 8 MB reply. */
class Echo extends DynamicToolService {
  readonly id = `echo-${randomUUID().slice(0, 8)}`;
  readonly topic = `echo-${randomUUID().slice(0, 8)}`;
  constructor(override readonly concurrency: number) {
    super();
  }

  readonly entered: unknown[] = [];

  async invoke(_user: string, _config: Record<string, unknown>, args: Record<string, unknown>): Promise<ToolResult> {
    this.entered.push(args.topic);
    if (typeof args.ms === "number") await new Promise((r) => setTimeout(r, args.ms as number));
    return `${String(args.topic)} and ${String(args.topic)}`;
  }
}

let webServiceUrl: string;
let serviceUrl: string;
const runtimes: ServiceRuntime[] = [];
const pulsars: PulsarClient[] = [];

async function startEcho(concurrency: number, env: Record<string, string> = {}) {
  const parsed = parseEnv(EmbeddedEnv, {
    PULSAR_WEB_URL: webServiceUrl,
    TOOLMESH_TENANT: process.env.TOOLMESH_TENANT,
    ...env,
  });
  const runtime = new ServiceRuntime({ name: "echo", env: parsed, logger: pino({ level: "silent" }) });
  runtimes.push(runtime);
  const service = new Echo(concurrency);
  await service.start(runtime, { announce: false });
  return { runtime, service };
}

/** A caller in its own Pulsar client, as another process (gateway, agent) would be; WebSocket unless `binary`. */
async function caller(service: Echo, timeoutMs: number, { binary = false } = {}) {
  const pulsar = new PulsarClient(binary ? { webServiceUrl, serviceUrl } : { webServiceUrl });
  pulsars.push(pulsar);
  return ToolServiceClient.create(pulsar, {
    ...serviceTopics(service.topic),
    timeoutMs,
  });
}

const metric = (page: string, outcome: string) =>
  Number(page.match(new RegExp(`toolmesh_requests_total\\{[^}]*outcome="${outcome}"[^}]*\\} (\\d+)`))?.[1] ?? 0);

beforeAll(async () => {
  ({ webServiceUrl, serviceUrl } = await useBroker());
});

afterAll(async () => {
  await Promise.all(pulsars.map((p) => p.close()));
  await Promise.all(runtimes.map((r) => r.stop()));
});

describe("oversized arguments and replies", () => {
  it("answers a 4 MB and a 7 MB argument with clear errors while 40 small calls succeed and the service stays ready", async () => {
    // On the binary transport, as services run by default. Over WebSocket the broker may drop a small
    // message behind a big one when the proxy put both on one of its connections (docs/operations.md,
    // "Big messages and small ones"); e2e/test/oversized.test.ts covers that transport.
    const { runtime, service } = await startEcho(8, { PULSAR_SERVICE_URL: serviceUrl });
    const tools = await caller(service, 20_000, { binary: true });
    const readiness: number[] = [];
    const connected: boolean[] = [];
    const sampler = setInterval(() => {
      connected.push(runtime.pulsar.connected);
      void runtime.http.inject({ method: "GET", url: "/readyz" }).then((r) => readiness.push(r.statusCode));
    }, 25);
    try {
      const fourMb = tools.call("u", {}, { topic: "a".repeat(4_000_000) }).catch((e: unknown) => e);
      const sevenMb = tools.call("u", {}, { topic: "b".repeat(7_000_000) }).catch((e: unknown) => e);
      const small = await Promise.all(Array.from({ length: 40 }, (_, i) => tools.call("u", {}, { topic: `t${i}` })));
      expect(small).toEqual(Array.from({ length: 40 }, (_, i) => `t${i} and t${i}`));

      const replyTooLarge = await fourMb;
      expect(replyTooLarge).toBeInstanceOf(ToolServiceError);
      expect(replyTooLarge).toMatchObject({ type: "too-large" });
      // The broker's own limit, as the binary transport learns it (6 MiB in infra/pulsar/standalone.conf).
      const limit = runtime.pulsar.maxMessageSize;
      expect(limit).toBe(6 * 1024 * 1024);
      expect((replyTooLarge as Error).message).toMatch(
        new RegExp(`^the reply of 8000\\d{3} bytes to request \\S+ on \\S+ exceeds the message size limit of ${limit} bytes$`),
      );
      expect((replyTooLarge as Error).message).toContain(requestTopic(service.topic));

      const requestTooLarge = await sevenMb;
      expect(requestTooLarge).toMatchObject({ name: "MessageTooLargeError", limit });
      expect((requestTooLarge as Error).message).toMatch(
        new RegExp(`^a request of \\d+ bytes for ${requestTopic(service.topic)} exceeds the limit of ${limit} bytes$`),
      );
    } finally {
      clearInterval(sampler);
    }
    expect(readiness.length).toBeGreaterThan(0);
    expect(readiness.every((status) => status === 200)).toBe(true);
    expect(connected.every(Boolean)).toBe(true);
    // A request is counted once its reply is sent, which may be after the caller has read it (the error
    // reply too): poll both.
    const count = async (outcome: string) => metric((await runtime.http.inject({ method: "GET", url: "/metrics" })).body, outcome);
    await expect.poll(() => count("ok")).toBe(40);
    await expect.poll(() => count("too-large")).toBe(1);
  });
});

describe("a burst past the backlog", () => {
  it("gets every request answered or answered overloaded, and /metrics counts each", async () => {
    const { runtime, service } = await startEcho(2, { REQUEST_BACKLOG: "50" });
    const processes = await Promise.all(Array.from({ length: 3 }, () => caller(service, 20_000)));
    const ends = await Promise.all(
      processes.flatMap((tools, p) =>
        Array.from({ length: 300 }, (_, i) =>
          tools.call("u", {}, { topic: `${p}-${i}`, ms: 2 }).then(
            (text) => (text === `${p}-${i} and ${p}-${i}` ? "answered" : "wrong"),
            (err: unknown) =>
              err instanceof ToolServiceError && err.type === "overloaded"
                ? "overloaded"
                : err instanceof RequestTimeoutError
                  ? "timed-out"
                  : String(err),
          ),
        ),
      ),
    );
    const counts: Record<string, number> = {};
    for (const end of ends) counts[end] = (counts[end] ?? 0) + 1;
    const answered = counts.answered ?? 0;
    const overloaded = counts.overloaded ?? 0;
    const timedOut = counts["timed-out"] ?? 0;
    expect(answered + overloaded + timedOut).toBe(900);
    expect(overloaded).toBeGreaterThan(0);
    expect(answered).toBeGreaterThan(0);

    await runtime.brokerDrops.poll();
    const page = (await runtime.http.inject({ method: "GET", url: "/metrics" })).body;
    const dropped = Number(page.match(/toolmesh_broker_dropped_messages_total\{topic="[^"]*\/request\/[^"]*"[^}]*\} (\d+)/)?.[1]);
    // The service received every request the broker did not drop, and counted how each ended.
    expect(metric(page, "ok") + metric(page, "overloaded") + metric(page, "expired") + dropped).toBe(900);
    expect(metric(page, "overloaded")).toBe(overloaded);
    expect(metric(page, "ok")).toBeGreaterThanOrEqual(answered);
    expect(page).toMatch(/toolmesh_request_backlog\{topic="[^"]+",service="echo"\} 0/);
  });

  it("skips a request whose caller stopped waiting, and counts it as expired", async () => {
    const { runtime, service } = await startEcho(1);
    const tools = await caller(service, 20_000);
    const slow = tools.call("u", {}, { topic: "slow", ms: 1_500 });
    await waitFor(() => service.entered.length === 1, { description: "the slow call in the handler" });
    await expect(tools.call("u", {}, { topic: "impatient" }, { timeoutMs: 200 })).rejects.toBeInstanceOf(RequestTimeoutError);
    expect(await slow).toBe("slow and slow");
    const page = await waitFor(
      async () => {
        const body = (await runtime.http.inject({ method: "GET", url: "/metrics" })).body;
        return metric(body, "expired") > 0 ? body : undefined;
      },
      { description: "the expired request counted" },
    );
    expect(metric(page, "expired")).toBe(1);
    expect(metric(page, "ok")).toBe(1);
  });
});

describe("a service stopped with a call in hand that would outlast SHUTDOWN_TIMEOUT_MS", () => {
  it("answers it 'unavailable ... retry' at the wind-down and stops before the timeout; /metrics counts it cut-short", async () => {
    // SHUTDOWN_TIMEOUT_MS 2 s winds down at 1.6 s (a fifth before); the call would take 8 s.
    const { runtime, service } = await startEcho(4, { PULSAR_SERVICE_URL: serviceUrl, SHUTDOWN_TIMEOUT_MS: "2000" });
    const tools = await caller(service, 15_000, { binary: true });
    const call = tools.call("alice", {}, { topic: "slow", ms: 8_000 }).catch((err: unknown) => err);
    await waitFor(() => service.entered.includes("slow"), { description: "the slow call to start" });
    const stopBegan = Date.now();
    await runtime.stop();
    const stoppedAfterMs = Date.now() - stopBegan;
    const failure = await call;
    expect(failure).toBeInstanceOf(ToolServiceError);
    expect(failure).toMatchObject({
      type: "unavailable",
      message: `${requestTopic(service.topic)}: the service instance is stopping and cut this request short before its shutdown timeout (SHUTDOWN_TIMEOUT_MS); retry`,
    });
    expect(stoppedAfterMs).toBeGreaterThanOrEqual(1_500);
    expect(stoppedAfterMs).toBeLessThan(2_000);
    // What /metrics would show (its HTTP server is closed by now).
    expect(metric(await runtime.metrics.registry.metrics(), "cut-short")).toBe(1);
  });
});
