import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RefreshRetry } from "../../src/refresh-retry.js";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("RefreshRetry (another refresh after a failed one)", () => {
  it("retries after a failure, the waits doubling up to the cap with jitter", () => {
    let retries = 0;
    const retry = new RefreshRetry({ initialMs: 1_000, maxMs: 4_000 }, () => retries++);
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      const delay = retry.failed()!;
      delays.push(delay);
      vi.advanceTimersByTime(delay);
      expect(retries).toBe(i + 1);
    }
    // Full jitter keeps each wait in [ceiling / 2, ceiling]: ceilings 1, 2, 4, 4 s.
    [1_000, 2_000, 4_000, 4_000].forEach((ceiling, i) => {
      expect(delays[i]).toBeGreaterThanOrEqual(ceiling / 2);
      expect(delays[i]).toBeLessThanOrEqual(ceiling);
    });
  });

  it("keeps one retry due at a time: failures meanwhile schedule nothing more", () => {
    let retries = 0;
    const retry = new RefreshRetry({ initialMs: 1_000, maxMs: 30_000 }, () => retries++);
    expect(retry.failed()).toBeDefined();
    expect(retry.failed()).toBeUndefined();
    expect(retry.failed()).toBeUndefined();
    vi.advanceTimersByTime(60_000);
    expect(retries).toBe(1);
  });

  it("a success cancels the retry due and starts the waits over", () => {
    let retries = 0;
    const retry = new RefreshRetry({ initialMs: 1_000, maxMs: 30_000 }, () => retries++);
    for (let i = 0; i < 4; i++) vi.advanceTimersByTime(retry.failed()!);
    retry.failed();
    retry.succeeded();
    vi.advanceTimersByTime(60_000);
    expect(retries).toBe(4);
    expect(retry.failed()!).toBeLessThanOrEqual(1_000);
  });

  it("schedules nothing once stopped, and drops the retry due", () => {
    let retries = 0;
    const retry = new RefreshRetry({ initialMs: 1_000, maxMs: 30_000 }, () => retries++);
    retry.failed();
    retry.stop();
    expect(retry.failed()).toBeUndefined();
    vi.advanceTimersByTime(60_000);
    expect(retries).toBe(0);
  });
});
