/** One session's lane, and the call that gives it back when the session closes. */
export interface LaneLease {
  lane: number;
  release(): void;
}

/**
 * Which connection lane each session of a multi-session subscription (Shared, Key_Shared) attaches on:
 * the lane fewest of the subscription's open sessions use. Released on close, and a subscription with
 * no session left is forgotten: every RequestClient has a reply subscription of its own, so keeping
 * them would grow without end.
 */
export class SessionLanes {
  /** Open sessions per lane, per subscription (topic and name). */
  private readonly open = new Map<string, number[]>();

  constructor(private readonly lanes: number) {}

  /** Subscriptions with a session open (what close() gives back; a test's view of it). */
  get subscriptions(): number {
    return this.open.size;
  }

  take(subscription: string): LaneLease {
    let counts = this.open.get(subscription);
    if (!counts) {
      counts = new Array<number>(this.lanes).fill(0);
      this.open.set(subscription, counts);
    }
    const used = counts;
    const lane = used.indexOf(Math.min(...used));
    used[lane]! += 1;
    let released = false;
    return {
      lane,
      release: () => {
        if (released) return;
        released = true;
        used[lane]! -= 1;
        if (used.every((n) => n === 0)) this.open.delete(subscription);
      },
    };
  }
}
