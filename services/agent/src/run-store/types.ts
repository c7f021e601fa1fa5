import type { AgentRun, AgentRunStep, AgentRunSummary } from "@toolmesh/schema";

export type NewStep = Omit<AgentRunStep, "seq" | "at">;

/** A step as both stores keep it: its arguments as JSON text. */
export type StepRow = AgentRunStep & { arguments: string | null };

/** A stored step as the wire shows it, its arguments parsed. */
export function stepFromRow(row: StepRow): AgentRunStep {
  return {
    seq: row.seq,
    kind: row.kind,
    content: row.content,
    tool: row.tool,
    arguments: row.arguments ? (JSON.parse(row.arguments) as Record<string, unknown>) : null,
    at: row.at,
    duration_ms: row.duration_ms,
  };
}

/** A run failed because the agent instance running it is gone. */
export interface OrphanedRun {
  run_id: string;
  instance_id: string | null;
  reason: string;
}

export interface NewRun {
  run_id: string;
  user: string;
  question: string;
  catalog_revision: number;
  catalog_hash: string;
  tools_offered: string[];
}

/** Why a run of a gone instance failed; `lastHeartbeat` (ms) when the instance is still on record. */
export function instanceGoneReason(instanceId: string | null, lastHeartbeat: number | null): string {
  if (instanceId === null)
    return "the agent instance running it stopped before the run finished (run recorded before instances were tracked)";
  const since = lastHeartbeat === null ? "" : ` (last heartbeat ${new Date(lastHeartbeat).toISOString()})`;
  return `agent instance ${instanceId} stopped before the run finished${since}`;
}

/**
 * Recorded runs: who asked what, against which catalog revision, every step, the outcome — and which agent
 * instance runs each, with the instances' heartbeats, so runs of an instance that died are failed by
 * whichever instance notices, with any number of instances on one database. Implementations: SQLite (one
 * file; replicas only on one volume) and PostgreSQL (DATABASE_URL: a run recorded by one replica is
 * readable through every other).
 */
export interface RunStore {
  /** The agent instance (process) this store records new runs for. */
  readonly instanceId: string;
  /** Where the runs live, for the start-up log (never a password). */
  readonly location: string;
  /** Records this instance as alive now (inserted again if another instance had given it up for dead). */
  heartbeat(now?: number): Promise<void>;
  /**
   * Fails every running run whose instance is not this one and has not beaten since `staleBefore` (or is not
   * on record), with an error step and the reason; then forgets those instances. Each run changes only
   * while still `running`, so instances reaping at once fail a run once.
   */
  failOrphanedRuns(staleBefore: number, now?: number): Promise<OrphanedRun[]>;
  /** On shutdown: fails this instance's runs still running (work the shutdown budget cut off) and leaves the record. */
  retire(now?: number): Promise<OrphanedRun[]>;
  begin(run: NewRun): Promise<void>;
  /** Appends a step (numbered in order from 0). */
  step(runId: string, step: NewStep): Promise<void>;
  /** Records the outcome once: a run already finished (e.g. failed as orphaned) keeps its outcome. */
  finish(runId: string, outcome: { answer: string } | { error: string }): Promise<void>;
  get(runId: string): Promise<AgentRun | null>;
  /** The latest runs, newest first. */
  list(limit: number): Promise<AgentRunSummary[]>;
  close(): Promise<void>;
}
