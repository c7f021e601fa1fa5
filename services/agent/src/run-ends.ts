import type { Logger } from "pino";
import type { RunStore } from "./run-store/index.js";

type Outcome = { answer: string } | { error: string };

/**
 * Where a run's end goes when it cannot be written. Another instance fails a run left `running` only once
 * its instance is gone, so a run whose end was lost to a database outage would stay `running` for as long
 * as this instance lives. Its end is kept here instead and written again on every heartbeat until the
 * database takes it (a later end of the same run never replaces an earlier one: finish() writes once).
 */
export class RunEnds {
  private readonly unwritten = new Map<string, Outcome>();

  constructor(
    private readonly store: RunStore,
    private readonly logger: Logger,
  ) {}

  /** Ends that are waiting for the database. */
  get pending(): number {
    return this.unwritten.size;
  }

  /** Writes the run's end; when that fails, keeps it for the next retry(). Never throws. */
  async recordOrKeep(runId: string, outcome: Outcome): Promise<void> {
    try {
      await this.store.finish(runId, outcome);
    } catch (err) {
      this.unwritten.set(runId, outcome);
      this.logger.warn({ err, run_id: runId }, "could not record how a run ended; it is written once the database answers");
    }
  }

  /** Writes the kept ends, oldest first; those that fail again stay. */
  async retry(): Promise<void> {
    for (const [runId, outcome] of this.unwritten) {
      try {
        await this.store.finish(runId, outcome);
      } catch {
        return; // The database is still away: the next heartbeat tries again.
      }
      this.unwritten.delete(runId);
      this.logger.info({ run_id: runId }, "recorded how a run ended, kept while the database was away");
    }
  }
}
