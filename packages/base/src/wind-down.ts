/**
 * A signal aborted a little before SHUTDOWN_TIMEOUT_MS runs out, counted from when the service begins to
 * stop: work still in hand then ends with an answer saying it was cut short (the agent records and sends
 * its runs as `unavailable`, mcp-server answers its tools/calls), while there is time left to do that,
 * instead of being cut off by the timeout with no answer at all. The margin is 2 s, or a fifth of a
 * shorter timeout.
 */
export function windDownBeforeShutdownTimeout(stopping: AbortSignal, shutdownTimeoutMs: number): AbortSignal {
  const windDown = new AbortController();
  const after = shutdownTimeoutMs - Math.min(2_000, shutdownTimeoutMs / 5);
  stopping.addEventListener("abort", () => setTimeout(() => windDown.abort(), after).unref(), { once: true });
  return windDown.signal;
}
