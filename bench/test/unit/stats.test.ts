import { describe, expect, it } from "vitest";
import { median, medianInterval, percentile, runLoad } from "../../src/stats.js";

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

describe("medianInterval (distribution-free, from the binomial)", () => {
  const ranks = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

  it("takes the order statistics the binomial gives: ranks 4 and 12 of 15, 40 and 61 of 100", () => {
    // P(X <= 3) = 0.018 <= 0.025 < P(X <= 4) = 0.059 for X ~ Binomial(15, 1/2).
    expect(medianInterval(ranks(15))).toEqual([4, 12]);
    expect(medianInterval(ranks(100))).toEqual([40, 61]);
    // Unsorted input, any values.
    expect(medianInterval([0.97, 0.88, 0.91, 1.02, 0.93, 0.95, 0.9, 0.99, 0.86, 0.94, 0.92, 0.96, 0.89, 1.0, 0.87])).toEqual([0.89, 0.97]);
  });

  it("widens at a higher level and has none when too few values could cover it", () => {
    expect(medianInterval(ranks(15), 0.99)).toEqual([3, 13]);
    expect(medianInterval(ranks(6))).toEqual([1, 6]); // P(X = 0) = 1/64
    expect(medianInterval(ranks(5))).toBeUndefined(); // P(X = 0) = 1/32 > 0.025
    expect(medianInterval([])).toBeUndefined();
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
