import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConfigOnBus, configOnBus, item } from "../support/config-on-bus.js";

// The config service as main.ts builds it, on the in-memory bus: the handler, the store and the pushes
// together, in milliseconds and with no broker (the same behaviours run on the real broker in integration).
let config: ConfigOnBus;

beforeAll(async () => {
  config = await configOnBus({ CONFIG_MAX_VALUE_BYTES: "2048", CONFIG_MAX_REPLY_BYTES: "8192" });
});
afterAll(() => config.close());

describe("config on the in-memory bus", () => {
  it("stores a descriptor, bumps the version and pushes the changed type", async () => {
    const before = (await config.ask({ operation: "config" })).version!;
    const put = await config.ask({ operation: "put", values: [item("tool-service", "jokes", { id: "jokes", topic: "joke" })] });
    expect(put.error).toBeNull();
    expect(put.version).toBe(before + 1);
    expect((await config.pushFor(before + 1)).changes).toEqual({ "tool-service": ["default"] });
    const got = await config.ask({ operation: "getvalues", type: "tool-service" });
    // Stored with the queues its topic means, where TrustGraph's agents read them (tool-service-queues.ts).
    expect(got.values.map((v) => [v.key, JSON.parse(v.value!)])).toEqual([
      ["jokes", { id: "jokes", topic: "joke", "request-queue": "request:tg:joke", "response-queue": "response:tg:joke" }],
    ]);
  });

  it("refuses an invalid descriptor and an oversized value with clear errors, and keeps serving", async () => {
    const bad = await config.ask({ operation: "put", values: [item("tool-service", "broken", { id: "broken" })] });
    expect(bad.error?.message).toMatch(/topic.*request-queue/);
    const big = await config.ask({ operation: "put", values: [item("note", "big", { text: "x".repeat(4096) })] });
    expect(big.error?.type).toBe("too-large");
    expect(big.error?.message).toMatch(/CONFIG_MAX_VALUE_BYTES/);
    expect((await config.ask({ operation: "list", type: "tool-service" })).directory).toEqual(["jokes"]);
  });

  it("answers a malformed request with bad-request and an unknown operation with bad-operation", async () => {
    expect((await config.askRaw({ operation: "get", keys: "tool" })).error?.type).toBe("bad-request");
    expect((await config.askRaw({ operation: "explode" })).error).toEqual({
      type: "bad-operation",
      message: "Bad operation 'explode' on the config queue",
    });
    expect((await config.ask({ operation: "list", type: "tool-service" })).error).toBeNull();
  });
});
