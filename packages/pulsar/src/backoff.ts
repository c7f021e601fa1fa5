export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 100, maxMs: 5_000 };

/** Exponential backoff with full jitter, so replicas that lost the broker together do not return together. */
export class Backoff {
  private attempt = 0;
  constructor(private readonly options: BackoffOptions = DEFAULT_BACKOFF) {}

  next(): number {
    const ceiling = Math.min(this.options.maxMs, this.options.initialMs * 2 ** this.attempt);
    this.attempt += 1;
    return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
  }

  reset(): void {
    this.attempt = 0;
  }
}
