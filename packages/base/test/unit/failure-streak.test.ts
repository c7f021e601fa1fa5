import { describe, expect, it } from "vitest";
import { FailureStreak } from "../../src/index.js";

describe("FailureStreak", () => {
  it("asks for one warning, one error at the threshold, then quiet; success ends the streak", () => {
    const streak = new FailureStreak(3);
    const start = new Date("2026-12-03T10:00:00Z");
    const levels = ["first", "second", "third", "fourth", "fifth"].map((reason, i) =>
      streak.failed(reason, new Date(start.getTime() + i * 1000)),
    );
    expect(levels).toEqual(["warn", "debug", "error", "debug", "debug"]);
    expect(streak).toMatchObject({ failures: 5, failing: true, lastReason: "fifth", startedAt: start });
    expect(streak.succeeded()).toEqual({ failures: 5, since: start });
    expect(streak).toMatchObject({ failures: 0, failing: false, lastReason: "", startedAt: undefined });
    expect(streak.succeeded()).toBeNull();
  });

  it("with a threshold of one, the first failure is the error", () => {
    expect(new FailureStreak(1).failed("down")).toBe("error");
  });
});
