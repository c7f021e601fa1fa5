import { describe, expect, it } from "vitest";
import { median, percentile, runLoad } from "../../src/stats.js";

describe("percentile (nearest rank)", () => {
  it("picks the nearest-rank value", () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(sorted, 50)).toBe(50);
    expect(percentile(sorted, 99)).toBe(99);
    expect(percentile(sorted, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });

  it("median of an odd and an even count", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2);
  });
});

describe("runLoad", () => {
  it("runs exactly the measured calls at the given concurrency, after the warm-up", async () => {
    let inFlight = 0;
    let peak = 0;
    const seen: number[] = [];
    const result = await runLoad(
      async (i) => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 1));
        inFlight -= 1;
        if (i < 1_000_000) seen.push(i);
        if (i === 7) throw new Error("boom");
      },
      { concurrency: 4, calls: 40, warmup: 8, capMs: 10_000 },
    );
    expect(peak).toBe(4);
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(result.ok).toBe(39);
    expect(result.errors).toBe(1);
    expect(result.firstError).toContain("boom");
    expect(result.capped).toBe(false);
    expect(result.p50).toBeGreaterThan(0);
  });

  it("stops taking calls after the cap", async () => {
    const result = await runLoad(() => new Promise((r) => setTimeout(r, 20)), { concurrency: 1, calls: 1_000, warmup: 0, capMs: 100 });
    expect(result.capped).toBe(true);
    expect(result.ok).toBeLessThan(20);
  });
});
