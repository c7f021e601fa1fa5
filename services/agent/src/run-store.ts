import { mkdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { AgentRun, AgentRunStep, AgentRunSummary } from "@toolmesh/schema";

type NewStep = Omit<AgentRunStep, "seq" | "at">;

/** Recorded runs in SQLite: who asked what, against which catalog revision, every step, the outcome. */
export class RunStore {
  private readonly db: Database.Database;

  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma("journal_mode = WAL");
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
    `);
  }

  static open(dir: string): RunStore {
    mkdirSync(dir, { recursive: true });
    return new RunStore(join(dir, "agent.db"));
  }

  begin(run: { run_id: string; user: string; question: string; catalog_revision: number; catalog_hash: string; tools_offered: string[] }): void {
    this.db
      .prepare(
        "INSERT INTO runs (run_id, user, question, catalog_revision, catalog_hash, tools_offered, status, started_at) VALUES (?, ?, ?, ?, ?, ?, 'running', ?)",
      )
      .run(run.run_id, run.user, run.question, run.catalog_revision, run.catalog_hash, JSON.stringify(run.tools_offered), new Date().toISOString());
  }

  step(runId: string, step: NewStep): void {
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

  finish(runId: string, outcome: { answer: string } | { error: string }): void {
    const answered = "answer" in outcome;
    this.db
      .prepare("UPDATE runs SET status = ?, finished_at = ?, answer = ?, error = ? WHERE run_id = ?")
      .run(answered ? "answered" : "failed", new Date().toISOString(), answered ? outcome.answer : null, answered ? null : outcome.error, runId);
  }

  get(runId: string): AgentRun | null {
    const run = this.db.prepare("SELECT * FROM runs WHERE run_id = ?").get(runId) as (AgentRunSummary & { tools_offered: string; answer: string | null; error: string | null }) | undefined;
    if (!run) return null;
    const steps = (this.db.prepare("SELECT * FROM steps WHERE run_id = ? ORDER BY seq").all(runId) as Array<AgentRunStep & { arguments: string | null }>).map(
      (s) => ({ seq: s.seq, kind: s.kind, content: s.content, tool: s.tool, arguments: s.arguments ? (JSON.parse(s.arguments) as Record<string, unknown>) : null, at: s.at, duration_ms: s.duration_ms }),
    );
    return { ...run, tools_offered: JSON.parse(run.tools_offered) as string[], steps };
  }

  list(limit: number): AgentRunSummary[] {
    return this.db
      .prepare("SELECT run_id, user, question, catalog_revision, catalog_hash, status, started_at, finished_at FROM runs ORDER BY started_at DESC LIMIT ?")
      .all(limit) as AgentRunSummary[];
  }

  close(): void {
    this.db.close();
  }
}
