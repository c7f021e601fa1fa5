/**
 * A signal aborted a little before SHUTDOWN_TIMEOUT_MS runs out, counted from when the service begins to
 * stop: runs still in hand then end as failed and are answered `unavailable` (recorded, sent), while
 * there is time left to do both, instead of being cut off by the timeout with no answer at all. The
 * margin is 2 s, or a fifth of a shorter timeout.
 */
export function windDownBeforeShutdownTimeout(stopping: AbortSignal, shutdownTimeoutMs: number): AbortSignal {
  const windDown = new AbortController();
  const after = shutdownTimeoutMs - Math.min(2_000, shutdownTimeoutMs / 5);
  stopping.addEventListener("abort", () => setTimeout(() => windDown.abort(), after).unref(), { once: true });
  return windDown.signal;
}
