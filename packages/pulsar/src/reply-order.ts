/**
 * The reply property serve() numbers one request's replies with: "0", "1", ... in the order it sent
 * them. A RequestClient reads its replies with several sessions of a Shared subscription, each on its
 * own connection; the broker deals a stream's chunks to them in turn, and a small chunk on a free
 * connection overtakes a multi-megabyte one still being written on another. The number puts them back.
 */
export const SEQUENCE_PROPERTY = "seq";

/** A reply's number from its SEQUENCE_PROPERTY, or undefined when it has none that is valid. */
export function replyNumber(seq: string | undefined): number | undefined {
  return seq === undefined || !/^\d{1,15}$/.test(seq) ? undefined : Number(seq);
}

/** Gives one request's replies back in the order their server sent them. */
export class ReplyOrder<R> {
  private next = 0;
  /** Replies that came before one sent ahead of them, by number; made only when one does (most calls never). */
  private early: Map<number, R> | undefined;

  /**
   * The replies deliverable now, in order: this one and the ones it was holding up, or none while an
   * earlier one is missing. A reply with no number (TrustGraph's servers send none) is taken as it comes.
   */
  accept(seq: string | undefined, reply: R): R[] {
    const n = replyNumber(seq);
    if (n === undefined) return [reply];
    if (n < this.next || this.early?.has(n)) return []; // a duplicate
    if (n === this.next && !this.early?.size) {
      this.next += 1; // in order with nothing held: the usual case, no bookkeeping
      return [reply];
    }
    this.early ??= new Map();
    this.early.set(n, reply);
    const ready: R[] = [];
    while (this.early.has(this.next)) {
      ready.push(this.early.get(this.next) as R);
      this.early.delete(this.next);
      this.next += 1;
    }
    return ready;
  }
}
