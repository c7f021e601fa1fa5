import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Logger } from "pino";
import { FailureStreak } from "@toolmesh/base";
import type { RunEnds } from "./run-ends.js";
import type { RunStore } from "./run-store/index.js";

export interface AgentInstanceOptions {
  store: RunStore;
  /** Runs' ends the database could not take yet: written again on every beat, and before retiring. */
  ends?: RunEnds;
  logger: Logger;
  /** AGENT_HEARTBEAT_INTERVAL_MS: how often this instance says it is alive, and looks for orphaned runs. */
  heartbeatMs: number;
  /** AGENT_INSTANCE_STALE_MS: an instance silent this long is gone; its running runs are failed. */
  staleAfterMs: number;
}

/** A readable id unique to this process: host, pid, and a random part (pids repeat across restarts). */
export function newInstanceId(): string {
  return `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
}

/**
 * This agent process as one instance among any number sharing the run database: it beats a heartbeat,
 * and fails the runs of instances that stopped beating (killed, crashed, lost their host), at start and on
 * every beat. A run is never failed while its instance still beats, so replicas leave each other's runs alone.
 */
export class AgentInstance {
  private timer: NodeJS.Timeout | undefined;
  // A database away for minutes fails every beat: one warning, one error at the third, then quiet.
  private readonly failures = new FailureStreak(3);
  // When others' runs may be judged orphaned again (see beat()).
  private judgeOthersFrom = 0;

  constructor(private readonly options: AgentInstanceOptions) {}

  get id(): string {
    return this.options.store.instanceId;
  }

  /** Registers the instance and fails what dead instances left running; then keeps beating. */
  async start(): Promise<void> {
    await this.beat();
    this.options.logger.info(
      { instance: this.id, heartbeatMs: this.options.heartbeatMs, staleAfterMs: this.options.staleAfterMs },
      "agent instance started",
    );
    this.timer = setInterval(() => void this.beat(), this.options.heartbeatMs).unref();
  }

  /** After in-flight runs finished: fails any this instance still has running, and leaves the record. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    // Their own ends first: retiring would record them as cut off by the shutdown.
    await this.options.ends?.retry();
    const cut = await this.options.store.retire();
    if (cut.length > 0)
      this.options.logger.warn({ instance: this.id, runs: cut.map((r) => r.run_id) }, "runs still running at shutdown were failed");
  }

  private async beat(): Promise<void> {
    const { store, logger, staleAfterMs } = this.options;
    try {
      const now = Date.now();
      await store.heartbeat(now);
      const streak = this.failures.succeeded();
      if (streak) {
        logger.info({ failures: streak.failures, since: streak.since }, "agent instance heartbeat back");
        // While the database was away nobody could beat: the others' heartbeats are as old as the outage,
        // though they live. They get a whole stale period to beat again before their runs are judged.
        this.judgeOthersFrom = now + staleAfterMs;
      }
      await this.options.ends?.retry();
      if (now >= this.judgeOthersFrom) {
        const orphans = await store.failOrphanedRuns(now - staleAfterMs, now);
        for (const run of orphans)
          logger.warn(
            { run_id: run.run_id, gone: run.instance_id, reason: run.reason },
            "failed a run left running by a gone agent instance",
          );
      }
    } catch (err) {
      // A busy or failing database must not stop the process; the next beat tries again.
      const level = this.failures.failed(err instanceof Error ? err.message : String(err));
      logger[level]({ err, failures: this.failures.failures }, "agent instance heartbeat failed");
    }
  }
}
