import { Backoff, type BackoffOptions } from "@toolmesh/pulsar";

/**
 * After a failed catalog refresh, one more later, the wait doubling (with jitter) up to `maxMs`, until one
 * succeeds. A change that came while the refresh could not run (its database away, say) then reaches the
 * catalog soon after the cause is gone, not at the next interval refresh (or never, with that turned off).
 * Any refresh that succeeds, whatever asked for it, ends the retries.
 */
export class RefreshRetry {
  private readonly backoff: Backoff;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    options: BackoffOptions,
    private readonly retry: () => void,
  ) {
    this.backoff = new Backoff(options);
  }

  /** A refresh failed: schedules the next try unless one is already due. Returns its delay, if scheduled now. */
  failed(): number | undefined {
    if (this.stopped || this.timer) return undefined;
    const delayMs = this.backoff.next();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.retry();
    }, delayMs);
    this.timer.unref();
    return delayMs;
  }

  succeeded(): void {
    this.backoff.reset();
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** No more retries (shutdown). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
