import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryTransport, PulsarClient, RequestClient, serve, traced, tracedStream, type Properties } from "../../src/index.js";

// No OpenTelemetry SDK is registered in this process: tracing is off, as it is by default. The wire must
// then be exactly what it was before tracing existed (no trace properties), and the helpers transparent.
const pulsar = new PulsarClient({ webServiceUrl: "memory://", transport: new MemoryTransport() });
afterAll(() => pulsar.close());

describe("with tracing off", () => {
  it("sends requests with only `id` and `deadline` properties", async () => {
    const seen: Properties[] = [];
    await serve(pulsar, {
      requestTopic: "non-persistent://t/ns/echo-req",
      responseTopic: "non-persistent://t/ns/echo-res",
      subscription: "echo-request",
      requestSchema: z.object({ text: z.string() }),
      errorReply: (error): { error: unknown; text: string } => ({ error, text: "" }),
      handler: async (request, context) => {
        seen.push(context.properties);
        return { error: null, text: request.text };
      },
    });
    const client = await RequestClient.create(pulsar, {
      requestTopic: "non-persistent://t/ns/echo-req",
      responseTopic: "non-persistent://t/ns/echo-res",
      responseSchema: z.object({ error: z.unknown(), text: z.string() }),
    });
    expect(await client.request({ text: "hi" })).toEqual({ error: null, text: "hi" });
    expect(Object.keys(seen[0]!).sort()).toEqual(["deadline", "id"]);
    await client.close();
  });

  it("passes results, errors and streams through unchanged", async () => {
    expect(await traced("x", {}, async () => 42)).toBe(42);
    await expect(traced("x", {}, async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    const out: number[] = [];
    for await (const n of tracedStream("s", {}, async function* () {
      yield 1;
      yield 2;
    }))
      out.push(n);
    expect(out).toEqual([1, 2]);
  });
});
