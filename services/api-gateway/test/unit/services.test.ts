import { describe, expect, it } from "vitest";
import { type ConfigView, parseItems } from "@toolmesh/base";
import { requestTopic, responseTopic } from "@toolmesh/schema";
import { GatewayError } from "../../src/errors.js";
import { ServiceTable } from "../../src/services.js";

// Only `ready` and `parsed` are read; a real ConfigView is exercised by the integration tests.
function table(descriptors: Record<string, string> | null) {
  const view = { ready: descriptors !== null, parsed: (_type: string, schema: Parameters<typeof parseItems>[1]) => parseItems(descriptors ?? {}, schema) } as unknown as ConfigView;
  return new ServiceTable(view, { requestMs: 1_000, agentMs: 9_000 });
}

function failure(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (err) {
    if (err instanceof GatewayError) return err;
  }
  throw new Error("expected a GatewayError");
}

describe("ServiceTable", () => {
  it("routes the fixed services to their topics, agent with its own idle timeout", () => {
    const services = table({});
    expect(services.resolve("config")).toMatchObject({ requestTopic: requestTopic("config"), streamed: false, timeoutMs: 1_000 });
    expect(services.resolve("tool-registry").responseTopic).toBe(responseTopic("tool-registry"));
    expect(services.resolve("agent")).toMatchObject({ streamed: true, timeoutMs: 9_000 });
  });

  it("ends an agent stream on end_of_dialog or an error message", () => {
    const { isLast } = table({}).resolve("agent");
    const last = (reply: object) => isLast(reply as never);
    expect(last({ message_type: "thought", end_of_dialog: false })).toBe(false);
    expect(last({ message_type: "answer", end_of_dialog: true })).toBe(true);
    expect(last({ message_type: "error", end_of_dialog: false })).toBe(true);
  });

  it("finds a tool service by descriptor id, in the seed and TrustGraph forms", () => {
    const services = table({
      jokes: JSON.stringify({ id: "jokes", topic: "joke" }),
      tg: JSON.stringify({ id: "tg", "request-queue": "non-persistent://tg/request/x", "response-queue": "non-persistent://tg/response/x" }),
    });
    const jokes = services.resolve("jokes");
    expect(jokes).toMatchObject({ kind: "tool-service", requestTopic: requestTopic("joke"), streamed: true });
    expect(jokes.isLast({ end_of_stream: false, error: null } as never)).toBe(false);
    expect(jokes.isLast({ end_of_stream: false, error: { type: "x", message: "y" } } as never)).toBe(true);
    expect(services.resolve("tg").responseTopic).toBe("non-persistent://tg/response/x");
  });

  it("says why a service cannot be used", () => {
    expect(failure(() => table({}).resolve("nope"))).toMatchObject({ status: 404, type: "unknown-service" });
    expect(failure(() => table({ bad: '{"id":"bad"}' }).resolve("bad"))).toMatchObject({
      status: 502,
      type: "config-error",
      message: expect.stringContaining("a tool-service needs 'topic' or 'request-queue'"),
    });
    const badTopic = JSON.stringify({ id: "q", "request-queue": "tg//joke", "response-queue": "x" });
    expect(failure(() => table({ q: badTopic }).resolve("q"))).toMatchObject({ status: 502, message: expect.stringContaining("invalid topic name 'tg//joke'") });
    expect(failure(() => table(null).resolve("jokes"))).toMatchObject({ status: 503, type: "unavailable" });
    for (const name of ["__proto__", "constructor", "toString"]) expect(failure(() => table({}).resolve(name))).toMatchObject({ status: 404 });
  });
});
