import { describe, expect, it } from "vitest";
import type { RunStore } from "../../src/run-store/index.js";

/** Opens a store on one place (a SQLite folder, a PostgreSQL database) for one agent instance; again, for another. */
export type StorePlace = (instanceId: string) => Promise<RunStore>;

export const T0 = Date.parse("2026-12-03T10:00:00Z");
const STALE_MS = 30_000;

export const begin = (store: RunStore, runId: string) =>
  store.begin({ run_id: runId, user: "alice", question: `question ${runId}`, catalog_revision: 1, catalog_hash: "h", tools_offered: [] });

/**
 * What every RunStore implementation must do, run against each (test/unit/run-store-sqlite.test.ts,
 * test/integration/run-store-postgres.test.ts). `newPlace` gives an empty place each time; `opened` closes
 * every store at the end of each test.
 */
export function runStoreContract(name: string, newPlace: () => Promise<StorePlace>, opened: RunStore[]): void {
  const instance = async (place: StorePlace, id: string) => {
    const store = await place(id);
    opened.push(store);
    return store;
  };

  describe(`RunStore on ${name}`, () => {
    it("lists runs newest first, runs started in the same millisecond in the order they were recorded", async () => {
      const place = await newPlace();
      const a = await instance(place, "agent-a");
      const b = await instance(place, "agent-b");
      const ids = Array.from({ length: 12 }, (_, i) => `burst-${String(i).padStart(2, "0")}`);
      // Alternating instances, as replicas sharing a database record them.
      for (const [i, id] of ids.entries()) await begin(i % 2 === 0 ? a : b, id);
      expect((await a.list(20)).map((r) => r.run_id)).toEqual([...ids].reverse());
    });

    it("records a run with its steps in order and its outcome once, readable through another instance", async () => {
      const place = await newPlace();
      const a = await instance(place, "agent-a");
      const b = await instance(place, "agent-b");
      await a.begin({
        run_id: "r1",
        user: "bob",
        question: "what's 2+2?",
        catalog_revision: 7,
        catalog_hash: "h7",
        tools_offered: ["calc", "joke"],
      });
      await a.step("r1", { kind: "thought", content: "use calc", tool: null, arguments: null, duration_ms: null });
      await a.step("r1", {
        kind: "tool-call",
        content: "calc {}",
        tool: "calc",
        arguments: { expression: "2+2", nested: { é: [1] } },
        duration_ms: null,
      });
      await a.step("r1", {
        kind: "observation",
        content: "4",
        tool: "calc",
        arguments: { expression: "2+2", nested: { é: [1] } },
        duration_ms: 12.5,
      });
      await a.finish("r1", { answer: "4" });
      await a.finish("r1", { error: "late" });
      const run = await b.get("r1");
      expect(run).toMatchObject({
        run_id: "r1",
        user: "bob",
        question: "what's 2+2?",
        catalog_revision: 7,
        catalog_hash: "h7",
        tools_offered: ["calc", "joke"],
        status: "answered",
        answer: "4",
        error: null,
      });
      expect(run!.finished_at).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(run!.steps.map((s) => [s.seq, s.kind, s.tool, s.duration_ms])).toEqual([
        [0, "thought", null, null],
        [1, "tool-call", "calc", null],
        [2, "observation", "calc", 12.5],
      ]);
      expect(run!.steps[1]!.arguments).toEqual({ expression: "2+2", nested: { é: [1] } });
      expect(await b.get("nope")).toBeNull();
      await begin(b, "r2");
      expect((await a.list(10)).map((r) => [r.run_id, r.status])).toEqual([
        ["r2", "running"],
        ["r1", "answered"],
      ]);
      expect(Object.keys((await a.list(1))[0]!).sort()).toEqual([
        "catalog_hash",
        "catalog_revision",
        "finished_at",
        "question",
        "run_id",
        "started_at",
        "status",
        "user",
      ]);
    });

    it("numbers steps written at once by two instances without a gap or a repeat", async () => {
      const place = await newPlace();
      const a = await instance(place, "agent-a");
      const b = await instance(place, "agent-b");
      await begin(a, "busy");
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? a : b).step("busy", { kind: "thought", content: `t${i}`, tool: null, arguments: null, duration_ms: null }),
        ),
      );
      expect((await a.get("busy"))!.steps.map((s) => s.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    });

    it("fails the runs of an instance that stopped beating, never those of a live one, nor its own", async () => {
      const place = await newPlace();
      const a = await instance(place, "agent-a");
      const b = await instance(place, "agent-b");
      await a.heartbeat(T0);
      await b.heartbeat(T0);
      await begin(a, "run-a");
      await begin(b, "run-b");
      // Both beat recently: nothing is failed, whoever looks.
      expect(await b.failOrphanedRuns(T0 + 10_000 - STALE_MS, T0 + 10_000)).toEqual([]);
      expect(await a.failOrphanedRuns(T0 + 10_000 - STALE_MS, T0 + 10_000)).toEqual([]);
      // a dies; b keeps beating. Once a's heartbeat is older than the bound, b fails run-a — only run-a.
      await b.heartbeat(T0 + 40_000);
      const now = T0 + 40_000;
      expect(await b.failOrphanedRuns(now - STALE_MS, now)).toEqual([
        {
          run_id: "run-a",
          instance_id: "agent-a",
          reason: "agent instance agent-a stopped before the run finished (last heartbeat 2026-12-03T10:00:00.000Z)",
        },
      ]);
      expect(await b.get("run-a")).toMatchObject({
        status: "failed",
        error: expect.stringMatching(/^agent instance agent-a stopped/),
        finished_at: "2026-12-03T10:00:40.000Z",
      });
      expect((await b.get("run-a"))!.steps.at(-1)).toMatchObject({
        kind: "error",
        content: expect.stringMatching(/^agent instance agent-a stopped/),
      });
      expect((await b.get("run-b"))!.status).toBe("running");
      // Failed once: another look changes nothing, and a late finish by the gone instance does not rewrite it.
      expect(await b.failOrphanedRuns(now - STALE_MS, now)).toEqual([]);
      await a.finish("run-a", { answer: "too late" });
      expect(await b.get("run-a")).toMatchObject({ status: "failed", answer: null });
      expect((await b.get("run-a"))!.steps.filter((s) => s.kind === "error")).toHaveLength(1);
    });

    it("an instance given up for dead that beats again is on record again, and its new runs are safe", async () => {
      const place = await newPlace();
      const a = await instance(place, "agent-a");
      const b = await instance(place, "agent-b");
      await a.heartbeat(T0);
      await b.heartbeat(T0 + 60_000);
      await b.failOrphanedRuns(T0 + 60_000 - STALE_MS, T0 + 60_000);
      await a.heartbeat(T0 + 61_000);
      await begin(a, "run-late");
      expect(await b.failOrphanedRuns(T0 + 62_000 - STALE_MS, T0 + 62_000)).toEqual([]);
    });
  });
}
