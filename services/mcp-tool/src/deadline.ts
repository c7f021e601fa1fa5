/**
 * Settles like `work`, unless `deadline` (epoch ms) passes first: then rejects with `late()`. `work` is not
 * cancelled (it may be shared, e.g. a session being opened for several calls); the timer never keeps the
 * process alive.
 */
export async function beforeDeadline<T>(work: Promise<T>, deadline: number, late: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), Math.max(0, deadline - Date.now()));
    timer.unref();
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Milliseconds left until `deadline`, at least 1 (the SDK treats 0 as "no time at all" anyway). */
export function remainingMs(deadline: number): number {
  return Math.max(1, deadline - Date.now());
}
