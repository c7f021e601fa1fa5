import { describe, expect, it } from "vitest";
import { ConcurrencyLimiter } from "../../src/index.js";

const tick = () => new Promise((r) => setTimeout(r, 5));

describe("ConcurrencyLimiter", () => {
  it("never runs more than the limit at once, and runs everything", async () => {
    const limiter = new ConcurrencyLimiter(3);
    let running = 0;
    let peak = 0;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        limiter.run(async () => {
          running += 1;
          peak = Math.max(peak, running);
          await tick();
          running -= 1;
          return i;
        }),
      ),
    );
    expect(peak).toBe(3);
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it("keeps going after a task throws, and idle() waits for the rest", async () => {
    const limiter = new ConcurrencyLimiter(1);
    const failing = limiter.run(async () => {
      throw new Error("boom");
    });
    let finished = false;
    void limiter.run(async () => {
      await tick();
      finished = true;
    });
    await expect(failing).rejects.toThrow("boom");
    await limiter.idle();
    expect(finished).toBe(true);
    expect(limiter.active).toBe(0);
  });

  it("refuses a limit that is not a positive integer", () => {
    expect(() => new ConcurrencyLimiter(0)).toThrow(/positive integer/);
  });
});
