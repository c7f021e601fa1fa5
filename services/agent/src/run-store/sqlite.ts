import { makeFolder } from "@toolmesh/base";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { AgentRun, AgentRunSummary } from "@toolmesh/schema";
import { type NewRun, type NewStep, type OrphanedRun, type RunStore, type StepRow, instanceGoneReason, stepFromRow } from "./types.js";

/**
 * Recorded runs in a SQLite file (the embedded default). better-sqlite3 is synchronous: each method does
 * its work at once and hands back a settled promise.
 */
export class SqliteRunStore implements RunStore {
  private readonly db: Database.Database;

  /** `instanceId`: the agent instance (process) this store records new runs for. */
  constructor(
    readonly location: string,
    readonly instanceId: string,
  ) {
    this.db = new Database(location);
    this.db.pragma("journal_mode = WAL");
    // Several processes may share the file (replicas on one volume): wait for a writer instead of failing.
    this.db.pragma("busy_timeout = 5000");
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS runs (
        run_id TEXT PRIMARY KEY, user TEXT NOT NULL, question TEXT NOT NULL,
        catalog_revision INTEGER NOT NULL, catalog_hash TEXT NOT NULL, tools_offered TEXT NOT NULL,
        status TEXT NOT NULL, started_at TEXT NOT NULL, finished_at TEXT, answer TEXT, error TEXT
      );
      CREATE TABLE IF NOT EXISTS steps (
        run_id TEXT NOT NULL REFERENCES runs (run_id), seq INTEGER NOT NULL, kind TEXT NOT NULL,
        content TEXT NOT NULL, tool TEXT, arguments TEXT, at TEXT NOT NULL, duration_ms REAL,
        PRIMARY KEY (run_id, seq)
      );
      CREATE TABLE IF NOT EXISTS instances (
        instance_id TEXT PRIMARY KEY, started_at TEXT NOT NULL, heartbeat_at INTEGER NOT NULL
      );
    `);
    const columns = this.db.prepare("PRAGMA table_info(runs)").all() as Array<{ name: string }>;
    // Runs recorded before instances were tracked keep NULL: no live instance owns them.
    if (!columns.some((c) => c.name === "instance_id")) this.db.exec("ALTER TABLE runs ADD COLUMN instance_id TEXT");
  }

  static open(dir: string, instanceId: string): SqliteRunStore {
    makeFolder(dir);
    return new SqliteRunStore(join(dir, "agent.db"), instanceId);
  }

  async heartbeat(now = Date.now()): Promise<void> {
    this.db
      .prepare(
        "INSERT INTO instances (instance_id, started_at, heartbeat_at) VALUES (?, ?, ?) ON CONFLICT (instance_id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at",
      )
      .run(this.instanceId, new Date(now).toISOString(), now);
  }

  /**
   * Fails every running run whose instance is not this one and has not beaten since `staleBefore` (or is not
   * on record), with an error step and the reason; then forgets those instances. One write transaction, and
   * each run changes only while still `running`, so instances reaping at once fail a run once.
   */
  async failOrphanedRuns(staleBefore: number, now = Date.now()): Promise<OrphanedRun[]> {
    return this.db
      .transaction(() => {
        const orphans = this.db
          .prepare(
            `SELECT r.run_id, r.instance_id, i.heartbeat_at FROM runs r LEFT JOIN instances i ON i.instance_id = r.instance_id
           WHERE r.status = 'running' AND r.instance_id IS NOT ? AND (i.heartbeat_at IS NULL OR i.heartbeat_at < ?)`,
          )
          .all(this.instanceId, staleBefore) as Array<{ run_id: string; instance_id: string | null; heartbeat_at: number | null }>;
        const failed = orphans.map((o) => ({
          run_id: o.run_id,
          instance_id: o.instance_id,
          reason: instanceGoneReason(o.instance_id, o.heartbeat_at),
        }));
        const done = failed.filter((run) => this.fail(run.run_id, run.reason, now));
        this.db.prepare("DELETE FROM instances WHERE instance_id IS NOT ? AND heartbeat_at < ?").run(this.instanceId, staleBefore);
        return done;
      })
      .immediate();
  }

  async retire(now = Date.now()): Promise<OrphanedRun[]> {
    return this.db
      .transaction(() => {
        const running = this.db
          .prepare("SELECT run_id FROM runs WHERE status = 'running' AND instance_id = ?")
          .all(this.instanceId) as Array<{ run_id: string }>;
        const reason = instanceGoneReason(this.instanceId, null);
        const done = running.filter(({ run_id }) => this.fail(run_id, reason, now));
        this.db.prepare("DELETE FROM instances WHERE instance_id = ?").run(this.instanceId);
        return done.map(({ run_id }) => ({ run_id, instance_id: this.instanceId, reason }));
      })
      .immediate();
  }

  async begin(run: NewRun): Promise<void> {
    this.db
      .prepare(
        "INSERT INTO runs (run_id, user, question, catalog_revision, catalog_hash, tools_offered, status, started_at, instance_id) VALUES (?, ?, ?, ?, ?, ?, 'running', ?, ?)",
      )
      .run(
        run.run_id,
        run.user,
        run.question,
        run.catalog_revision,
        run.catalog_hash,
        JSON.stringify(run.tools_offered),
        new Date().toISOString(),
        this.instanceId,
      );
  }

  async step(runId: string, step: NewStep): Promise<void> {
    this.stepNow(runId, step);
  }

  private stepNow(runId: string, step: NewStep): void {
    this.db
      .prepare(
        `INSERT INTO steps (run_id, seq, kind, content, tool, arguments, at, duration_ms)
         VALUES (@run, (SELECT COUNT(*) FROM steps WHERE run_id = @run), @kind, @content, @tool, @args, @at, @ms)`,
      )
      .run({
        run: runId,
        kind: step.kind,
        content: step.content,
        tool: step.tool,
        args: step.arguments ? JSON.stringify(step.arguments) : null,
        at: new Date().toISOString(),
        ms: step.duration_ms,
      });
  }

  async finish(runId: string, outcome: { answer: string } | { error: string }): Promise<void> {
    const answered = "answer" in outcome;
    this.db
      .prepare("UPDATE runs SET status = ?, finished_at = ?, answer = ?, error = ? WHERE run_id = ? AND status = 'running'")
      .run(
        answered ? "answered" : "failed",
        new Date().toISOString(),
        answered ? outcome.answer : null,
        answered ? null : outcome.error,
        runId,
      );
  }

  /** Fails a run still running, with an error step; false when it had already finished. */
  private fail(runId: string, reason: string, now: number): boolean {
    const changed = this.db
      .prepare("UPDATE runs SET status = 'failed', finished_at = ?, error = ? WHERE run_id = ? AND status = 'running'")
      .run(new Date(now).toISOString(), reason, runId).changes;
    if (changed === 1) this.stepNow(runId, { kind: "error", content: reason, tool: null, arguments: null, duration_ms: null });
    return changed === 1;
  }

  async get(runId: string): Promise<AgentRun | null> {
    const run = this.db.prepare("SELECT * FROM runs WHERE run_id = ?").get(runId) as
      (AgentRunSummary & { tools_offered: string; answer: string | null; error: string | null }) | undefined;
    if (!run) return null;
    const steps = (this.db.prepare("SELECT * FROM steps WHERE run_id = ? ORDER BY seq").all(runId) as StepRow[]).map(stepFromRow);
    return { ...run, tools_offered: JSON.parse(run.tools_offered) as string[], steps };
  }

  async list(limit: number): Promise<AgentRunSummary[]> {
    return this.db
      .prepare(
        // rowid (insertion order) breaks ties: two runs may start in the same millisecond.
        "SELECT run_id, user, question, catalog_revision, catalog_hash, status, started_at, finished_at FROM runs ORDER BY started_at DESC, rowid DESC LIMIT ?",
      )
      .all(limit) as AgentRunSummary[];
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
