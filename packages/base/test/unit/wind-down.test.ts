import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { windDownBeforeShutdownTimeout } from "../../src/wind-down.js";

describe("windDownBeforeShutdownTimeout", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it.each([
    [10_000, 8_000],
    [30_000, 28_000],
    [3_000, 2_400], // a fifth of a timeout under 10 s
  ])("with SHUTDOWN_TIMEOUT_MS %i aborts %i ms after the stop begins, not before", (timeoutMs, windDownMs) => {
    const stopping = new AbortController();
    const windDown = windDownBeforeShutdownTimeout(stopping.signal, timeoutMs);
    vi.advanceTimersByTime(60_000);
    expect(windDown.aborted).toBe(false); // the clock starts at the stop, not at start-up
    stopping.abort();
    vi.advanceTimersByTime(windDownMs - 1);
    expect(windDown.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(windDown.aborted).toBe(true);
  });
});
