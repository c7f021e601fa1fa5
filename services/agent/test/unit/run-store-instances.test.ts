import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { RunStore } from "../../src/run-store.js";

const dirs: string[] = [];
const stores: RunStore[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-runs-"));
  dirs.push(dir);
  return dir;
};
/** One instance's handle on the shared run database, as each replica process has. */
const instance = (dir: string, id: string) => {
  const store = RunStore.open(dir, id);
  stores.push(store);
  return store;
};
const begin = (store: RunStore, runId: string) =>
  store.begin({ run_id: runId, user: "alice", question: `question ${runId}`, catalog_revision: 1, catalog_hash: "h", tools_offered: [] });
afterEach(() => {
  stores.splice(0).forEach((s) => s.close());
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});

const T0 = Date.parse("2026-12-03T10:00:00Z");
const STALE_MS = 30_000;

describe("RunStore across agent instances sharing one database", () => {
  it("fails the runs of an instance that stopped beating, never those of a live one, nor its own", () => {
    const dir = freshDir();
    const a = instance(dir, "agent-a");
    const b = instance(dir, "agent-b");
    a.heartbeat(T0);
    b.heartbeat(T0);
    begin(a, "run-a");
    begin(b, "run-b");
    // Both beat recently: nothing is failed, whoever looks.
    expect(b.failOrphanedRuns(T0 + 10_000 - STALE_MS, T0 + 10_000)).toEqual([]);
    expect(a.failOrphanedRuns(T0 + 10_000 - STALE_MS, T0 + 10_000)).toEqual([]);
    // a dies; b keeps beating. Once a's heartbeat is older than the bound, b fails run-a — only run-a.
    b.heartbeat(T0 + 40_000);
    const now = T0 + 40_000;
    expect(b.failOrphanedRuns(now - STALE_MS, now)).toEqual([
      { run_id: "run-a", instance_id: "agent-a", reason: "agent instance agent-a stopped before the run finished (last heartbeat 2026-12-03T10:00:00.000Z)" },
    ]);
    expect(b.get("run-a")).toMatchObject({ status: "failed", error: expect.stringMatching(/^agent instance agent-a stopped/), finished_at: "2026-12-03T10:00:40.000Z" });
    expect(b.get("run-a")!.steps.at(-1)).toMatchObject({ kind: "error", content: expect.stringMatching(/^agent instance agent-a stopped/) });
    expect(b.get("run-b")!.status).toBe("running");
    // Failed once: another look changes nothing, and a late finish by the gone instance does not rewrite it.
    expect(b.failOrphanedRuns(now - STALE_MS, now)).toEqual([]);
    a.finish("run-a", { answer: "too late" });
    expect(b.get("run-a")).toMatchObject({ status: "failed", answer: null });
    expect(b.get("run-a")!.steps.filter((s) => s.kind === "error")).toHaveLength(1);
  });

  it("an instance given up for dead that beats again is on record again, and its new runs are safe", () => {
    const dir = freshDir();
    const a = instance(dir, "agent-a");
    const b = instance(dir, "agent-b");
    a.heartbeat(T0);
    b.heartbeat(T0 + 60_000);
    b.failOrphanedRuns(T0 + 60_000 - STALE_MS, T0 + 60_000);
    a.heartbeat(T0 + 61_000);
    begin(a, "run-late");
    expect(b.failOrphanedRuns(T0 + 62_000 - STALE_MS, T0 + 62_000)).toEqual([]);
  });

  it("fails runs recorded before instances were tracked, and a retiring instance fails what it still runs", () => {
    const dir = freshDir();
    // A database from before this change: runs without an instance_id column.
    const old = new Database(join(dir, "agent.db"));
    old.exec(`CREATE TABLE runs (run_id TEXT PRIMARY KEY, user TEXT NOT NULL, question TEXT NOT NULL, catalog_revision INTEGER NOT NULL,
      catalog_hash TEXT NOT NULL, tools_offered TEXT NOT NULL, status TEXT NOT NULL, started_at TEXT NOT NULL, finished_at TEXT, answer TEXT, error TEXT);
      INSERT INTO runs VALUES ('old-run', 'alice', 'q', 1, 'h', '[]', 'running', '2026-12-01T00:00:00Z', NULL, NULL, NULL);`);
    old.close();
    const a = instance(dir, "agent-a");
    a.heartbeat(T0);
    expect(a.failOrphanedRuns(T0 - STALE_MS, T0).map((r) => [r.run_id, r.reason])).toEqual([
      ["old-run", "the agent instance running it stopped before the run finished (run recorded before instances were tracked)"],
    ]);
    begin(a, "cut-off");
    expect(a.retire(T0 + 1_000)).toEqual([{ run_id: "cut-off", instance_id: "agent-a", reason: "agent instance agent-a stopped before the run finished" }]);
    expect(a.get("cut-off")!.status).toBe("failed");
  });
});
