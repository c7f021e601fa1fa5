import type { MessageId } from "./message-id.js";

/**
 * Nacked entries wait out the redelivery delay, then are asked back from the broker together
 * (REDELIVER_UNACKNOWLEDGED_MESSAGES), as Apache's clients do.
 */
export class NegativeAcks {
  private readonly due = new Map<string, { id: MessageId; at: number }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly delayMs: number,
    private readonly redeliver: (ids: MessageId[]) => void,
  ) {}

  add(entry: string, id: MessageId): void {
    this.due.set(entry, { id: { ...id, batchIndex: -1 }, at: Date.now() + this.delayMs });
    this.arm();
  }

  /** An ack after a nack wins: nothing to redeliver. */
  forget(entry: string): void {
    this.due.delete(entry);
  }

  clear(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.due.clear();
  }

  private arm(): void {
    if (this.timer || this.due.size === 0) return;
    let next = Infinity;
    for (const d of this.due.values()) next = Math.min(next, d.at);
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        const now = Date.now();
        const ready: MessageId[] = [];
        for (const [entry, d] of this.due) {
          if (d.at <= now) {
            ready.push(d.id);
            this.due.delete(entry);
          }
        }
        this.redeliver(ready);
        this.arm();
      },
      Math.max(0, next - Date.now()),
    );
    this.timer.unref();
  }
}
