import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { CatalogTool, ManifestEntry } from "@toolmesh/schema";
import type { RegistryStore } from "../../src/store/index.js";

/**
 * Opens a store on one place (a SQLite folder, a PostgreSQL database); called again, it opens the same
 * place once more (a restart, or a second replica).
 */
export type StorePlace = () => Promise<RegistryStore>;

const entry = (tool_id: string, description = ""): ManifestEntry => ({
  tool_id,
  name: tool_id,
  description,
  parameters_schema: { type: "object" },
  binding: { kind: "text-completion" },
});
const tool = (tool_id: string, description = ""): CatalogTool => ({
  ...entry(tool_id, description),
  source: "config",
  content_hash: `h-${tool_id}`,
});
const hash = (n: number) => n.toString(16).padStart(64, "0");

/**
 * What every RegistryStore implementation must do, run against each (test/unit/store-sqlite.test.ts,
 * test/integration/store-postgres.test.ts). `newPlace` gives an empty place each time.
 */
export function registryStoreContract(name: string, newPlace: () => Promise<StorePlace>): void {
  describe(`RegistryStore on ${name}`, () => {
    it("appends numbered revisions and finds them by number, by hash (the newest with it) and in a list", async () => {
      const store = await (await newPlace())();
      expect(await store.latest()).toBeNull();
      const first = await store.append(hash(1), [tool("a", 'quote "x" \u00e9')]);
      expect(first).toMatchObject({ revision_number: 1, content_hash: hash(1), tool_count: 1 });
      await store.append(hash(2), [tool("a"), tool("b")]);
      const third = await store.append(hash(1), [tool("a", 'quote "x" \u00e9')]);
      expect(third.revision_number).toBe(3);
      expect(await store.latest()).toEqual(third);
      expect(await store.byNumber(1)).toEqual(first);
      expect(await store.byNumber(9)).toBeNull();
      expect((await store.byHash(hash(1)))?.revision_number).toBe(3);
      expect(await store.byHash(hash(7))).toBeNull();
      expect((await store.list(2)).map((r) => [r.revision_number, r.tool_count])).toEqual([
        [3, 1],
        [2, 2],
      ]);
      expect(Object.keys((await store.list(1))[0]!).sort()).toEqual(["content_hash", "created_at", "revision_number", "tool_count"]);
      await store.close();
    });

    it("keeps a source's last good entries through failures, reports statuses, and forgets dropped sources", async () => {
      const store = await (await newPlace())();
      await store.recordSuccess("source:b", [entry("x"), entry("y")], ["y: odd"], ["z: not for the catalog"]);
      await store.recordSuccess("config", [entry("c")], []);
      await store.recordFailure("source:b", "timeout");
      await store.recordFailure("source:new", "refused");
      expect((await store.lastGoodEntries("source:b")).map((e) => e.tool_id)).toEqual(["x", "y"]);
      expect(await store.lastGoodEntries("source:none")).toEqual([]);
      const statuses = await store.statuses();
      expect(statuses.map((s) => [s.source, s.status, s.reason, s.tool_count, s.left_out])).toEqual([
        ["config", "ok", null, 1, []],
        ["source:b", "degraded", "timeout", 2, ["z: not for the catalog"]],
        ["source:new", "degraded", "refused", 0, []],
      ]);
      expect(statuses[0]!.last_success_at).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(statuses[2]!.last_success_at).toBeNull();
      await store.forgetSourcesExcept(["config"]);
      expect((await store.statuses()).map((s) => s.source)).toEqual(["config"]);
      await store.close();
    });

    it("records announcements, says when a service's tools changed, and drops silent services", async () => {
      const store = await (await newPlace())();
      const before = new Date(Date.now() - 1_000);
      expect(await store.saveAnnouncement("joke", [entry("tell-joke")])).toBe(true);
      expect(await store.saveAnnouncement("joke", [entry("tell-joke")])).toBe(false);
      expect(await store.saveAnnouncement("joke", [entry("tell-joke", "new")])).toBe(true);
      expect(await store.saveAnnouncement("calc", [])).toBe(true);
      expect((await store.announcements(before)).map((a) => [a.service_id, a.manifest.length])).toEqual([
        ["calc", 0],
        ["joke", 1],
      ]);
      expect(await store.announcements(new Date(Date.now() + 60_000))).toEqual([]);
      await store.close();
    });

    it("keeps state across reopening the same place", async () => {
      const place = await newPlace();
      const first = await place();
      const made = await first.append(hash(5), [tool("kept")]);
      await first.recordSuccess("config", [entry("kept")], []);
      await first.close();
      const second = await place();
      expect(await second.latest()).toEqual(made);
      expect((await second.lastGoodEntries("config")).map((e) => e.tool_id)).toEqual(["kept"]);
      await second.close();
    });

    it("lets one refresh at a time run across two stores on one place, never repeating a revision number", async () => {
      const place = await newPlace();
      const stores = [await place(), await place()];
      let inside = 0;
      let most = 0;
      // Each refresh reads the newest, waits (as a refresh fetching manifests does), then appends after it.
      const refresh = (store: RegistryStore, n: number) =>
        store.exclusive(async () => {
          most = Math.max(most, ++inside);
          const latest = await store.latest();
          await sleep(5);
          const made = await store.append(hash(n), [tool(`t${n}`)]);
          inside--;
          return { before: latest?.revision_number ?? 0, made: made.revision_number };
        });
      const results = await Promise.all(Array.from({ length: 12 }, (_, n) => refresh(stores[n % 2]!, n)));
      expect(most).toBe(1);
      expect(results.map((r) => r.made).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      for (const r of results) expect(r.made).toBe(r.before + 1);
      // Both serve the same current revision, whichever made it.
      expect((await stores[0]!.latest())?.revision_number).toBe(12);
      expect(await stores[1]!.latest()).toEqual(await stores[0]!.latest());
      // A refresh that throws releases the turn.
      await expect(stores[0]!.exclusive(() => Promise.reject(new Error("source exploded")))).rejects.toThrow("source exploded");
      expect(await stores[1]!.exclusive(async () => "next")).toBe("next");
      for (const s of stores) await s.close();
    });
  });
}
