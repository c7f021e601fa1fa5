/** Runs at most `limit` tasks at once; the rest wait in arrival order. */
export class ConcurrencyLimiter {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`concurrency must be a positive integer, got ${limit}`);
  }

  get active(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running += 1;
    try {
      return await task();
    } finally {
      this.running -= 1;
      const next = this.waiting.shift();
      if (next) next();
      else if (this.running === 0) {
        for (const resolve of this.idleWaiters) resolve();
        this.idleWaiters = [];
      }
    }
  }

  /** Resolves when nothing runs or waits: used to finish in-flight work on shutdown. */
  idle(): Promise<void> {
    if (this.running === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }
}
