import { describe, expect, it } from "vitest";
import type { ConfigKey, ConfigValue } from "@toolmesh/schema";
import { type ConfigStore, TypeOverLimit } from "../../src/store/index.js";

/**
 * Opens a store on one place (a SQLite folder, a PostgreSQL database); called again, it opens the same
 * place once more (a restart, or a second replica).
 */
export type StorePlace = () => Promise<ConfigStore>;

const put = async (store: ConfigStore, workspace: string, values: ConfigValue[], max?: number) =>
  (await store.write(workspace, { put: values }, max)).version;
const remove = async (store: ConfigStore, workspace: string, keys: ConfigKey[]) => (await store.write(workspace, { delete: keys })).version;

/**
 * What every ConfigStore implementation must do, run against each (test/unit/store-sqlite.test.ts,
 * test/integration/store-postgres.test.ts). `newPlace` gives an empty place each time.
 */
export function configStoreContract(name: string, newPlace: () => Promise<StorePlace>): void {
  describe(`ConfigStore on ${name}`, () => {
    it("puts, reads, lists and deletes per workspace, bumping one version per change", async () => {
      const store = await (await newPlace())();
      expect(await store.version()).toBe(0);
      expect(
        await put(store, "default", [
          { type: "tool", key: "b", value: "{}" },
          { type: "tool", key: "a", value: '{"x":1}' },
        ]),
      ).toBe(1);
      expect(await put(store, "team", [{ type: "tool", key: "a", value: "team" }])).toBe(2);
      expect(await store.keys("default", "tool")).toEqual(["a", "b"]);
      expect(
        await store.get("default", [
          { type: "tool", key: "a" },
          { type: "tool", key: "zz" },
        ]),
      ).toEqual([
        { type: "tool", key: "a", value: '{"x":1}' },
        { type: "tool", key: "zz", value: null },
      ]);
      expect(await store.all("team")).toEqual({ tool: { a: "team" } });
      expect(
        await remove(store, "default", [
          { type: "tool", key: "a" },
          { type: "tool", key: "never-there" },
        ]),
      ).toBe(3);
      expect(await store.keys("default", "tool")).toEqual(["b"]);
      expect(await store.keysAllWorkspaces("tool")).toEqual([
        { workspace: "default", type: "tool", key: "b" },
        { workspace: "team", type: "tool", key: "a" },
      ]);
      expect((await store.valuesAllWorkspaces("tool")).map((v) => `${v.workspace}/${v.key}=${v.value}`)).toEqual([
        "default/b={}",
        "team/a=team",
      ]);
      await store.close();
    });

    it("registers workspaces, fills a new one from the template, and reports registrations that come and go", async () => {
      const store = await (await newPlace())();
      await put(store, "__template__", [
        { type: "prompt", key: "system", value: "be brief" },
        { type: "tool", key: "t", value: "{}" },
      ]);
      await put(store, "acme", [{ type: "tool", key: "t", value: "acme's own" }]);
      const written = await store.write("acme", { put: [{ type: "mcp", key: "m", value: "{}" }], register: ["acme"] });
      expect(written).toEqual({ version: 3, created: ["acme"], deleted: [], provisioned: { acme: ["prompt"] } });
      expect(await store.all("acme")).toEqual({ mcp: { m: "{}" }, prompt: { system: "be brief" }, tool: { t: "acme's own" } });
      // Registering again changes nothing; explicit registration through __workspaces__ works the same way.
      expect((await store.write("acme", { register: ["acme"] })).created).toEqual([]);
      expect(
        (await store.write("__workspaces__", { put: [{ type: "workspace", key: "beta", value: '{"enabled": true}' }] })).created,
      ).toEqual(["beta"]);
      expect(await store.workspaces()).toEqual(["acme", "beta"]);
      expect(await store.write("__workspaces__", { delete: [{ type: "workspace", key: "beta" }] })).toMatchObject({
        created: [],
        deleted: ["beta"],
      });
      await store.close();
    });

    it("registers default at start, and once the workspaces a store from before registration holds", async () => {
      const place = await newPlace();
      const old = await place();
      await put(old, "team-a", [{ type: "tool", key: "t", value: "{}" }]);
      await put(old, "__template__", [{ type: "tool", key: "t", value: "{}" }]);
      await put(old, "bad/name", [{ type: "tool", key: "t", value: "{}" }]);
      expect((await old.registerAtStart((ws) => !ws.includes("/")))?.created).toEqual(["default", "team-a"]);
      await old.write("__workspaces__", { delete: [{ type: "workspace", key: "team-a" }] });
      await old.close();
      const reopened = await place();
      expect(await reopened.registerAtStart(() => true)).toBeNull();
      expect(await reopened.workspaces()).toEqual(["default"]);
      await reopened.close();
    });

    it("keeps items and the version across reopening the same place", async () => {
      const place = await newPlace();
      const first = await place();
      await put(first, "default", [{ type: "mcp", key: "calc", value: '{"url":"http://h/mcp"}' }]);
      await put(first, "default", [{ type: "mcp", key: "calc", value: '{"url":"http://h2/mcp"}' }]);
      await first.close();
      const second = await place();
      expect(await second.version()).toBe(2);
      expect(await second.values("default", "mcp")).toEqual([{ type: "mcp", key: "calc", value: '{"url":"http://h2/mcp"}' }]);
      await second.close();
    });

    it("measures a type's getvalues reply as the JSON the wire carries, escapes included", async () => {
      const store = await (await newPlace())();
      const values = [
        { type: "tool", key: "quoted", value: JSON.stringify({ say: 'he said "hi"\n', path: "C:\\x" }) },
        { type: "tool", key: "unicode-\u00e9", value: "caf\u00e9 \u{1F600} \u0001" },
      ];
      await put(store, "default", values);
      const wire = Buffer.byteLength(JSON.stringify({ version: await store.version(), values: await store.values("default", "tool") }));
      const estimate = await store.getvaluesReplyBytes("default", "tool");
      expect(estimate).toBeGreaterThanOrEqual(wire);
      expect(estimate - wire).toBeLessThanOrEqual(64);
      expect(await store.getvaluesReplyBytes("default", "nothing")).toBeLessThanOrEqual(64);
      await store.close();
    });

    it("refuses a put that would make a type's reply exceed the bound, storing none of it, but lets a type shrink", async () => {
      const store = await (await newPlace())();
      const big = (key: string, size: number) => ({ type: "blob", key, value: "x".repeat(size) });
      await put(store, "default", [big("a", 600)], 1_000);
      await expect(put(store, "default", [big("b", 600), { type: "tool", key: "t", value: "{}" }], 1_000)).rejects.toThrow(TypeOverLimit);
      expect(await store.version()).toBe(1);
      expect(await store.keys("default", "blob")).toEqual(["a"]);
      expect(await store.keys("default", "tool")).toEqual([]);
      // Another workspace has its own bound.
      expect(await put(store, "team", [big("b", 600)], 1_000)).toBe(2);
      // Stored before a bound existed: over it, yet a put that makes the type smaller is accepted.
      await put(store, "default", [big("b", 900)]);
      await expect(put(store, "default", [big("c", 10)], 1_000)).rejects.toThrow(
        /type 'blob' would need a \d+-byte reply, over the limit of 1000/,
      );
      expect(await put(store, "default", [big("b", 100)], 1_000)).toBe(4);
      await store.close();
    });

    it("gives two stores on one place (two replicas) one version sequence: never repeated, never backwards, none lost", async () => {
      const place = await newPlace();
      const [a, b] = [await place(), await place()];
      // Each replica writes one change after another; both at once, and 20 more all at once from each.
      const sequence = async (store: ConfigStore, tag: string) => {
        const seen: number[] = [];
        for (let i = 0; i < 10; i++) seen.push(await put(store, "default", [{ type: "tool", key: `${tag}${i % 3}`, value: String(i) }]));
        return seen;
      };
      const [fromA, fromB] = await Promise.all([sequence(a, "a"), sequence(b, "b")]);
      const burst = await Promise.all(
        Array.from({ length: 20 }, (_, i) => put(i % 2 === 0 ? a : b, "default", [{ type: "tool", key: `c${i % 4}`, value: String(i) }])),
      );
      expect([...fromA, ...fromB, ...burst].sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      // A replica's own successive writes never see the version go backwards.
      for (const mine of [fromA, fromB]) expect(mine).toEqual([...mine].sort((x, y) => x - y));
      expect(await a.version()).toBe(40);
      expect(await b.version()).toBe(40);
      // A workspace one store registers is registered for the other, which then creates it no second time.
      expect((await a.write("team", { put: [{ type: "tool", key: "t", value: "{}" }], register: ["team"] })).created).toEqual(["team"]);
      expect((await b.write("team", { register: ["team"] })).created).toEqual([]);
      expect(await b.workspaces()).toEqual(["team"]);
      await a.close();
      await b.close();
    });

    it("holds a type's size bound against two stores putting at once: of two puts that together exceed it, one is refused", async () => {
      const place = await newPlace();
      const [a, b] = [await place(), await place()];
      for (let round = 0; round < 10; round++) {
        const type = `blob${round}`;
        const results = await Promise.allSettled(
          [a, b].map((store, i) => put(store, "default", [{ type, key: `k${i}`, value: "x".repeat(600) }], 1_000)),
        );
        expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
        expect(await a.getvaluesReplyBytes("default", type)).toBeLessThanOrEqual(1_000);
      }
      await a.close();
      await b.close();
    });

    it("keeps the last value when one put names a key twice", async () => {
      const store = await (await newPlace())();
      await put(store, "default", [
        { type: "tool", key: "t", value: "first" },
        { type: "tool", key: "t", value: "second" },
      ]);
      expect(await store.values("default", "tool")).toEqual([{ type: "tool", key: "t", value: "second" }]);
      await store.close();
    });

    it("returns types and keys named like Object.prototype's members as its own, touching no prototype", async () => {
      const store = await (await newPlace())();
      await put(store, "default", [
        { type: "__proto__", key: "polluted", value: "yes" },
        { type: "constructor", key: "__proto__", value: "{}" },
      ]);
      const all = await store.all("default");
      expect(Object.keys(all)).toEqual(["__proto__", "constructor"]);
      expect(Object.getOwnPropertyDescriptor(all, "__proto__")?.value).toEqual({ polluted: "yes" });
      expect(Object.getOwnPropertyDescriptor(all.constructor, "__proto__")?.value).toBe("{}");
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      await store.close();
    });
  });
}
