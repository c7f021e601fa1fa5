import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { type RunStore, SqliteRunStore } from "../../src/run-store/index.js";
import { T0, begin, runStoreContract } from "../support/run-store-contract.js";

const dirs: string[] = [];
const opened: RunStore[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-runs-"));
  dirs.push(dir);
  return dir;
};
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});

runStoreContract(
  "SQLite",
  async () => {
    const dir = freshDir();
    return async (instanceId) => SqliteRunStore.open(dir, instanceId);
  },
  opened,
);

describe("SqliteRunStore on a file from before instances were tracked", () => {
  it("fails runs recorded before instances were tracked, and a retiring instance fails what it still runs", async () => {
    const dir = freshDir();
    // A database from before this change: runs without an instance_id column.
    const old = new Database(join(dir, "agent.db"));
    old.exec(`CREATE TABLE runs (run_id TEXT PRIMARY KEY, user TEXT NOT NULL, question TEXT NOT NULL, catalog_revision INTEGER NOT NULL,
      catalog_hash TEXT NOT NULL, tools_offered TEXT NOT NULL, status TEXT NOT NULL, started_at TEXT NOT NULL, finished_at TEXT, answer TEXT, error TEXT);
      INSERT INTO runs VALUES ('old-run', 'alice', 'q', 1, 'h', '[]', 'running', '2026-12-01T00:00:00Z', NULL, NULL, NULL);`);
    old.close();
    const a = SqliteRunStore.open(dir, "agent-a");
    opened.push(a);
    await a.heartbeat(T0);
    expect((await a.failOrphanedRuns(T0 - 30_000, T0)).map((r) => [r.run_id, r.reason])).toEqual([
      ["old-run", "the agent instance running it stopped before the run finished (run recorded before instances were tracked)"],
    ]);
    await begin(a, "cut-off");
    expect(await a.retire(T0 + 1_000)).toEqual([
      { run_id: "cut-off", instance_id: "agent-a", reason: "agent instance agent-a stopped before the run finished" },
    ]);
    expect((await a.get("cut-off"))!.status).toBe("failed");
  });
});
