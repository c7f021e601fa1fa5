import type { Logger } from "pino";
import { Backoff, type Subscription } from "@toolmesh/pulsar";
import { workspaceIdProblem } from "./workspaces.js";

export interface WorkspaceQueuesOptions {
  /** The registered workspaces, read from the store (the truth) on every sync. */
  registered: () => Promise<string[]>;
  /** Starts serving one workspace's queue `request:tg:config:<ws>`. */
  serve: (workspace: string) => Promise<Subscription>;
  logger: Logger;
}

/**
 * The per-workspace config queues, kept equal to the registered workspaces. sync() runs at start, after
 * every write that registers or unregisters a workspace (before its push and reply, so whoever hears of a
 * new workspace can use its queue at once), and on every push naming workspace changes (another replica's
 * writes, should several ever share a database). Each sync re-reads the store, so repeated or reordered
 * calls are harmless; syncs run one at a time. A queue that cannot be subscribed is retried with backoff
 * and keeps /readyz not ready meanwhile.
 */
export class WorkspaceQueues {
  private readonly served = new Map<string, Subscription>();
  private readonly failing = new Set<string>();
  private running: Promise<void> = Promise.resolve();
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly backoff = new Backoff({ initialMs: 250, maxMs: 5_000 });
  private closed = false;

  constructor(private readonly options: WorkspaceQueuesOptions) {}

  /** The workspaces whose queue is served now. */
  get workspaces(): string[] {
    return [...this.served.keys()].sort();
  }

  /** True when every registered workspace's queue is served. */
  get complete(): boolean {
    return this.failing.size === 0;
  }

  sync(): Promise<void> {
    this.running = this.running.then(() => this.apply());
    return this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    await this.running;
    await Promise.all([...this.served.values()].map((s) => s.close()));
    this.served.clear();
  }

  private async apply(): Promise<void> {
    if (this.closed) return;
    const { logger } = this.options;
    let registered: string[];
    try {
      registered = await this.options.registered();
    } catch (err) {
      // The store is unreachable (database down): keep the queues served now and try again.
      logger.error({ err }, "could not read the registered workspaces; retrying");
      if (!this.closed) this.retryTimer = setTimeout(() => void this.sync(), this.backoff.next()).unref();
      return;
    }
    const wanted = new Set(registered.filter((ws) => workspaceIdProblem(ws) === null));
    this.failing.clear();
    for (const workspace of wanted) {
      if (this.served.has(workspace)) continue;
      try {
        this.served.set(workspace, await this.options.serve(workspace));
        logger.info({ workspace }, "serving the workspace's config queue");
      } catch (err) {
        this.failing.add(workspace);
        logger.error({ err, workspace }, "could not serve the workspace's config queue; retrying");
      }
    }
    for (const [workspace, subscription] of this.served) {
      if (wanted.has(workspace)) continue;
      this.served.delete(workspace);
      await subscription.close();
      logger.info({ workspace }, "workspace unregistered: stopped serving its config queue");
    }
    if (this.failing.size === 0) this.backoff.reset();
    else if (!this.closed) this.retryTimer = setTimeout(() => void this.sync(), this.backoff.next()).unref();
  }
}
