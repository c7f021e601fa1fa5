import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ErrorType, ServiceError } from "@toolmesh/schema";
import { MemoryTransport, PulsarClient, RequestClient, serve } from "../../src/index.js";

// A handler's ServiceError is a refusal it meant (bad input, not found): logged with its type and text,
// no stack. Anything else it throws is unexpected and logged with its stack.

const logged: Array<Record<string, unknown>> = [];
const pulsar = new PulsarClient({
  webServiceUrl: "memory://",
  transport: new MemoryTransport(),
  logger: pino({ level: "info" }, { write: (line: string) => void logged.push(JSON.parse(line)) }),
});
afterAll(() => pulsar.close());

describe("a failed request's log line", () => {
  it("has a refusal's type and text without a stack, and an unexpected error's stack", async () => {
    const topics = { requestTopic: "non-persistent://t/ns/fail-req", responseTopic: "non-persistent://t/ns/fail-res" };
    await serve(pulsar, {
      ...topics,
      subscription: "fail-request",
      requestSchema: z.object({ refuse: z.boolean() }),
      errorReply: (error): { error: unknown } => ({ error }),
      handler: async ({ refuse }) => {
        if (refuse) throw new ServiceError(ErrorType.notFound, "no revision yet");
        throw new TypeError("cannot read 'x' of undefined");
      },
    });
    const client = await RequestClient.create(pulsar, { ...topics, responseSchema: z.object({ error: z.unknown() }), timeoutMs: 2_000 });
    expect((await client.request({ refuse: true })).error).toEqual({ type: "not-found", message: "no revision yet" });
    expect((await client.request({ refuse: false })).error).toMatchObject({ message: "cannot read 'x' of undefined" });
    await client.close();

    const failed = logged.filter((line) => line.msg === "request failed");
    expect(failed).toHaveLength(2);
    expect(failed[0]).toMatchObject({ level: 40, type: "not-found", reason: "no revision yet" });
    expect(failed[0]!.err).toBeUndefined();
    expect(failed[1]).toMatchObject({ level: 40, err: { type: "TypeError", message: "cannot read 'x' of undefined" } });
    expect((failed[1]!.err as { stack: string }).stack).toMatch(/TypeError: cannot read 'x' of undefined\n\s+at /);
  });
});
