import { describe, expect, it } from "vitest";
import { type ConfigRequestWire, ConfigResponse } from "@toolmesh/schema";
import { fetchConfigTypes } from "../../src/index.js";

type Store = Record<string, Record<string, string>>;

/**
 * A config service in memory that answers like the real one, refusing any reply with more than
 * `maxItems` values as too-large (the real one counts bytes). `version()` may move between requests.
 */
function fakeConfig(store: Store, options: { maxItems?: number; version?: () => number } = {}) {
  const asked: ConfigRequestWire[] = [];
  const version = options.version ?? (() => 7);
  const tooLarge = ConfigResponse.parse({ error: { type: "too-large", message: "over CONFIG_MAX_REPLY_BYTES" } });
  const ask = async (request: ConfigRequestWire) => {
    asked.push(request);
    const items = store[request.type ?? ""] ?? {};
    switch (request.operation) {
      case "getvalues": {
        const values = Object.entries(items).map(([key, value]) => ({ type: request.type!, key, value }));
        return values.length > (options.maxItems ?? Infinity) ? tooLarge : ConfigResponse.parse({ version: version(), values });
      }
      case "list":
        return ConfigResponse.parse({ version: version(), directory: Object.keys(items).sort() });
      case "get": {
        const keys = request.keys ?? [];
        if (keys.length > (options.maxItems ?? Infinity)) return tooLarge;
        // A missing key comes back with a null value, as the config service answers (TrustGraph's way).
        const values = keys.map(({ type, key }) => ({ type, key, value: store[type]?.[key] ?? null }));
        return ConfigResponse.parse({ version: version(), values });
      }
      default:
        return ConfigResponse.parse({ error: { type: "bad-request", message: `unexpected ${request.operation}` } });
    }
  };
  return { ask, asked };
}

describe("fetchConfigTypes", () => {
  it("reads only the types asked for, one getvalues each", async () => {
    const { ask, asked } = fakeConfig({ tool: { a: "1" }, mcp: { m: "2" }, huge: { h: "3" } });
    const fetched = await fetchConfigTypes(ask, "default", ["tool", "tool-service"]);
    expect(fetched).toEqual({ snapshot: { tool: { a: "1" }, "tool-service": {} }, version: 7, consistent: true });
    expect(asked.map((r) => `${r.operation}:${r.type}`).sort()).toEqual(["getvalues:tool", "getvalues:tool-service"]);
  });

  it("pages a type too large for one reply: list, then get in halves until each page fits", async () => {
    const items = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`k${i}`, `v${i}`]));
    const { ask, asked } = fakeConfig({ blob: items }, { maxItems: 2 });
    const fetched = await fetchConfigTypes(ask, "default", ["blob"]);
    expect(fetched.snapshot).toEqual({ blob: items });
    expect(fetched.consistent).toBe(true);
    const gets = asked.filter((r) => r.operation === "get").map((r) => r.keys!.map((k) => k.key).join(","));
    expect(gets).toEqual(["k0,k1,k2", "k0,k1", "k2", "k3,k4"]);
  });

  it("leaves out a key deleted between 'list' and 'get' (its value comes back null)", async () => {
    const store: Store = { blob: { a: "1", b: "2" } };
    const { ask } = fakeConfig(store, { maxItems: 1 });
    const asking = async (request: ConfigRequestWire) => {
      const reply = await ask(request);
      if (request.operation === "list") delete store.blob!.b;
      return reply;
    };
    expect((await fetchConfigTypes(asking, "default", ["blob"])).snapshot).toEqual({ blob: { a: "1" } });
  });

  it("names the item when a single value cannot be read", async () => {
    const { ask } = fakeConfig({ blob: { only: "x" } }, { maxItems: 0 });
    await expect(fetchConfigTypes(ask, "default", ["blob"])).rejects.toThrow(
      "config 'blob' 'only' cannot be read: too-large: over CONFIG_MAX_REPLY_BYTES",
    );
  });

  it("fails on an error reply, naming the type", async () => {
    const ask = async () => ConfigResponse.parse({ error: { type: "config-error", message: "store unavailable" } });
    await expect(fetchConfigTypes(ask, "default", ["tool"])).rejects.toThrow("config 'tool': config-error: store unavailable");
  });

  it("reads again when a change lands between the per-type replies, and says so if it never settles", async () => {
    let counter = 0;
    const settling = fakeConfig({ a: {}, b: {} }, { version: () => (++counter <= 2 ? counter : 9) });
    expect(await fetchConfigTypes(settling.ask, "default", ["a", "b"])).toMatchObject({ version: 9, consistent: true });
    expect(settling.asked).toHaveLength(4);

    let moving = 0;
    const unsettled = fakeConfig({ a: {}, b: {} }, { version: () => ++moving });
    expect(await fetchConfigTypes(unsettled.ask, "default", ["a", "b"])).toMatchObject({ version: 5, consistent: false });
    expect(unsettled.asked).toHaveLength(6);
  });
});
