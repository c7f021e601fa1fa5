/** What `unlessAborted` resolves to when its signal aborts before the work settles. */
export const ABORTED: unique symbol = Symbol("aborted");

/**
 * `work`'s outcome, or `ABORTED` if `signal` aborts first (at once if it already has). The listener is
 * removed as soon as the work settles: racing many short tasks against one long-lived promise instead
 * would keep a reaction per task on the signal until it aborts (a leak in a long-running process).
 */
export function unlessAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T | typeof ABORTED> {
  if (!signal) return work;
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}
