/**
 * Calls waiting for their reply, by correlation id, with a timer each (as any real client needs), so a
 * lost reply fails the call instead of hanging the run.
 */
export class PendingReplies<K = string> {
  private readonly waiting = new Map<K, { resolve: (body: unknown) => void; timer: NodeJS.Timeout }>();

  constructor(private readonly timeoutMs = 10_000) {}

  wait(id: K, what: string): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`${what}: no reply within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.waiting.set(id, { resolve, timer });
    });
  }

  /** Hands `body` to the call waiting for `id`; replies nobody waits for are dropped. */
  settle(id: K | undefined, body: unknown): void {
    const call = id === undefined ? undefined : this.waiting.get(id);
    if (!call) return;
    this.waiting.delete(id!);
    clearTimeout(call.timer);
    call.resolve(body);
  }
}
