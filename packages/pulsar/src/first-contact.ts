/**
 * Request timeouts for a service that has not answered yet. Request topics are non-persistent, so a
 * request sent before the service subscribes is dropped and only its timeout tells. Services start in any
 * order (`npm run up`, a Kubernetes rollout): with the usual timeout on every try, one that comes up a
 * moment after its caller is reached a whole timeout later, and the caller's readiness waits that long.
 * Until the first answer, the first try waits `firstMs` and each one after twice as long as the one
 * before, up to the usual timeout, so a service that starts T after its caller is reached by about 2T;
 * from the first answer on, every request gets the usual timeout.
 */
export class FirstContact {
  private upcoming: number;
  private answeredOnce = false;

  constructor(
    private readonly timeoutMs: number,
    firstMs = 250,
  ) {
    this.upcoming = Math.min(firstMs, timeoutMs);
  }

  /** The timeout for the next request. */
  timeout(): number {
    if (this.answeredOnce) return this.timeoutMs;
    const timeout = this.upcoming;
    this.upcoming = Math.min(this.upcoming * 2, this.timeoutMs);
    return timeout;
  }

  /** Whether the service has answered at least once. */
  get reached(): boolean {
    return this.answeredOnce;
  }

  /** The service answered: every request from now on gets the usual timeout. */
  answered(): void {
    this.answeredOnce = true;
  }
}
