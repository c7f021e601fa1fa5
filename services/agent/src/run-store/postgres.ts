import { type Db, type Migration, type Sql, databaseLocation, openDatabase, type PoolSettings } from "@toolmesh/base";
import type { AgentRun, AgentRunSummary } from "@toolmesh/schema";
import { type NewRun, type NewStep, type OrphanedRun, type RunStore, type StepRow, instanceGoneReason, stepFromRow } from "./types.js";

const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: "runs, steps, instances",
    sql: `
      CREATE TABLE agent_runs (
        run_id TEXT PRIMARY KEY, "user" TEXT NOT NULL, question TEXT NOT NULL,
        catalog_revision INTEGER NOT NULL, catalog_hash TEXT NOT NULL, tools_offered TEXT NOT NULL,
        status TEXT NOT NULL, started_at TEXT NOT NULL, finished_at TEXT, answer TEXT, error TEXT, instance_id TEXT
      );
      CREATE INDEX agent_runs_by_start ON agent_runs (started_at DESC);
      CREATE INDEX agent_runs_running ON agent_runs (instance_id) WHERE status = 'running';
      CREATE TABLE agent_steps (
        run_id TEXT NOT NULL REFERENCES agent_runs (run_id), seq INTEGER NOT NULL, kind TEXT NOT NULL,
        content TEXT NOT NULL, tool TEXT, arguments TEXT, at TEXT NOT NULL, duration_ms DOUBLE PRECISION,
        PRIMARY KEY (run_id, seq)
      );
      CREATE TABLE agent_instances (
        instance_id TEXT PRIMARY KEY, started_at TEXT NOT NULL, heartbeat_at BIGINT NOT NULL
      );`,
  },
  {
    version: 2,
    name: "runs numbered in insertion order",
    // Two runs may start in the same millisecond (on one replica or two): the number orders them in list().
    sql: `
      ALTER TABLE agent_runs ADD COLUMN recorded BIGSERIAL;
      DROP INDEX agent_runs_by_start;
      CREATE INDEX agent_runs_by_start ON agent_runs (started_at DESC, recorded DESC);`,
  },
];

type RunRow = AgentRunSummary & { tools_offered: string; answer: string | null; error: string | null };

/**
 * Recorded runs in PostgreSQL (DATABASE_URL), shared by every agent replica: a run recorded by one is
 * readable through any other. A step takes the run's row lock while it numbers itself, so a step the
 * owner writes and an error step another instance adds when failing the run never take the same number.
 */
export class PostgresRunStore implements RunStore {
  private constructor(
    private readonly sql: Sql,
    readonly location: string,
    readonly instanceId: string,
  ) {}

  /** Connects and applies the migrations (safe when several replicas start at once). */
  static async open(url: string, instanceId: string, pool: PoolSettings = {}): Promise<PostgresRunStore> {
    return new PostgresRunStore(await openDatabase(url, "agent", MIGRATIONS, pool), databaseLocation(url), instanceId);
  }

  async heartbeat(now = Date.now()): Promise<void> {
    await this.sql`
      INSERT INTO agent_instances (instance_id, started_at, heartbeat_at) VALUES (${this.instanceId}, ${new Date(now).toISOString()}, ${now})
      ON CONFLICT (instance_id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at`;
  }

  async failOrphanedRuns(staleBefore: number, now = Date.now()): Promise<OrphanedRun[]> {
    return this.sql.begin(async (tx) => {
      const orphans = await tx<Array<{ run_id: string; instance_id: string | null; heartbeat_at: number | null }>>`
        SELECT r.run_id, r.instance_id, i.heartbeat_at FROM agent_runs r LEFT JOIN agent_instances i ON i.instance_id = r.instance_id
        WHERE r.status = 'running' AND r.instance_id IS DISTINCT FROM ${this.instanceId} AND (i.heartbeat_at IS NULL OR i.heartbeat_at < ${staleBefore})`;
      const done: OrphanedRun[] = [];
      for (const o of orphans) {
        const run = { run_id: o.run_id, instance_id: o.instance_id, reason: instanceGoneReason(o.instance_id, o.heartbeat_at) };
        if (await fail(tx, run.run_id, run.reason, now)) done.push(run);
      }
      await tx`DELETE FROM agent_instances WHERE instance_id IS DISTINCT FROM ${this.instanceId} AND heartbeat_at < ${staleBefore}`;
      return done;
    });
  }

  async retire(now = Date.now()): Promise<OrphanedRun[]> {
    return this.sql.begin(async (tx) => {
      const running = await tx<
        Array<{ run_id: string }>
      >`SELECT run_id FROM agent_runs WHERE status = 'running' AND instance_id = ${this.instanceId}`;
      const reason = instanceGoneReason(this.instanceId, null);
      const done: OrphanedRun[] = [];
      for (const { run_id } of running)
        if (await fail(tx, run_id, reason, now)) done.push({ run_id, instance_id: this.instanceId, reason });
      await tx`DELETE FROM agent_instances WHERE instance_id = ${this.instanceId}`;
      return done;
    });
  }

  async begin(run: NewRun): Promise<void> {
    await this.sql`
      INSERT INTO agent_runs (run_id, "user", question, catalog_revision, catalog_hash, tools_offered, status, started_at, instance_id)
      VALUES (${run.run_id}, ${run.user}, ${run.question}, ${run.catalog_revision}, ${run.catalog_hash}, ${JSON.stringify(run.tools_offered)},
        'running', ${new Date().toISOString()}, ${this.instanceId})`;
  }

  async step(runId: string, step: NewStep): Promise<void> {
    await this.sql.begin((tx) => addStep(tx, runId, step));
  }

  async finish(runId: string, outcome: { answer: string } | { error: string }): Promise<void> {
    const answered = "answer" in outcome;
    await this.sql`
      UPDATE agent_runs SET status = ${answered ? "answered" : "failed"}, finished_at = ${new Date().toISOString()},
        answer = ${answered ? outcome.answer : null}, error = ${answered ? null : outcome.error}
      WHERE run_id = ${runId} AND status = 'running'`;
  }

  async get(runId: string): Promise<AgentRun | null> {
    const [run] = await this.sql<RunRow[]>`SELECT * FROM agent_runs WHERE run_id = ${runId}`;
    if (!run) return null;
    const steps = await this.sql<StepRow[]>`SELECT * FROM agent_steps WHERE run_id = ${runId} ORDER BY seq`;
    return {
      ...run,
      tools_offered: JSON.parse(run.tools_offered) as string[],
      steps: steps.map(stepFromRow),
    };
  }

  async list(limit: number): Promise<AgentRunSummary[]> {
    return [
      ...(await this.sql<AgentRunSummary[]>`
        SELECT run_id, "user", question, catalog_revision, catalog_hash, status, started_at, finished_at FROM agent_runs ORDER BY started_at DESC, recorded DESC LIMIT ${limit}`),
    ];
  }

  async close(): Promise<void> {
    await this.sql.end({ timeout: 5 });
  }
}

/** Inside a transaction: locks the run, then appends the step with the next number. */
async function addStep(tx: Db, runId: string, step: NewStep): Promise<void> {
  await tx`SELECT 1 FROM agent_runs WHERE run_id = ${runId} FOR UPDATE`;
  await tx`
    INSERT INTO agent_steps (run_id, seq, kind, content, tool, arguments, at, duration_ms)
    VALUES (${runId}, (SELECT count(*) FROM agent_steps WHERE run_id = ${runId}), ${step.kind}, ${step.content}, ${step.tool},
      ${step.arguments ? JSON.stringify(step.arguments) : null}, ${new Date().toISOString()}, ${step.duration_ms})`;
}

/** Fails a run still running, with an error step; false when it had already finished. */
async function fail(tx: Db, runId: string, reason: string, now: number): Promise<boolean> {
  const changed = await tx`
    UPDATE agent_runs SET status = 'failed', finished_at = ${new Date(now).toISOString()}, error = ${reason}
    WHERE run_id = ${runId} AND status = 'running'`;
  if (changed.count === 1) await addStep(tx, runId, { kind: "error", content: reason, tool: null, arguments: null, duration_ms: null });
  return changed.count === 1;
}
