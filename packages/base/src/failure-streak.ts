/** How a failure should be logged: the first of a streak, the one that crosses the threshold, or quietly. */
export type FailureLogLevel = "warn" | "error" | "debug";

/**
 * Consecutive failures of something retried in the background (a config reload): when the streak began,
 * how long it is, the last reason. Decides the log level so a streak gives one warning, one error when it
 * crosses `threshold`, and nothing more, however long it lasts.
 */
export class FailureStreak {
  private count = 0;
  private since: Date | undefined;
  private last = "";

  constructor(readonly threshold: number) {}

  get failures(): number {
    return this.count;
  }

  get startedAt(): Date | undefined {
    return this.since;
  }

  get lastReason(): string {
    return this.last;
  }

  /** At or past the threshold. */
  get failing(): boolean {
    return this.count >= this.threshold;
  }

  failed(reason: string, now = new Date()): FailureLogLevel {
    this.count += 1;
    this.since ??= now;
    this.last = reason;
    if (this.count === this.threshold) return "error";
    return this.count === 1 ? "warn" : "debug";
  }

  /** Ends the streak; returns what it was (null when there was none), for a recovery log line. */
  succeeded(): { failures: number; since: Date } | null {
    const ended = this.since ? { failures: this.count, since: this.since } : null;
    this.count = 0;
    this.since = undefined;
    this.last = "";
    return ended;
  }
}
