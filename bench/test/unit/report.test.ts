import { describe, expect, it } from "vitest";
import { callTarget } from "../../src/report.js";
import { type LoadResult, combineRounds } from "../../src/stats.js";

const row = (concurrency: number, p50: number, callsPerSec: number, broker?: number): LoadResult => ({
  concurrency,
  ok: 100,
  errors: 0,
  capped: false,
  wallMs: 1_000,
  callsPerSec,
  p50,
  p90: p50,
  p99: p50,
  max: p50,
  mean: p50,
  cpu: { perCallUs: broker === undefined ? { bench: 100 } : { bench: 100, broker }, machineBusyPct: 50, gcPauseUs: 2 },
});

describe("callTarget", () => {
  it("checks the binary tool call against the WebSocket tool call and the official client in the same run", () => {
    const others = { "tool-call": row(32, 10, 2_000, 400), "official-raw": row(32, 3, 6_000, 50) };
    const met = callTarget("tool-call-binary", row(32, 4, 4_500, 150), (name) => others[name as keyof typeof others]);
    expect(met.target).toBe("≥ 2000 calls/s, ≥ 2× ws tool-call calls/s, broker cpu ≤ 40% of ws");
    expect(met.met).toBe(true);
    expect(met.ratioOfficialP50).toBeCloseTo(4 / 3);

    const slow = callTarget("tool-call-binary", row(32, 4, 3_900, 150), (name) => others[name as keyof typeof others]);
    expect(slow.met).toBe(false);
    const costly = callTarget("tool-call-binary", row(32, 4, 4_500, 170), (name) => others[name as keyof typeof others]);
    expect(costly.met).toBe(false);
  });

  it("holds a traced row to 0.9× the calls/s of the same row untraced, at any level", () => {
    const untraced = { "tool-call-binary": row(8, 1, 5_000) };
    const other = (name: string) => untraced[name as keyof typeof untraced];
    const cheap = callTarget("tool-call-binary-traced", row(8, 1.1, 4_500), other);
    expect(cheap.target).toBe("calls/s ≥ 0.9× untraced (0.900)");
    expect(cheap.met).toBe(true);
    expect(callTarget("tool-call-binary-traced", row(8, 1.2, 4_400), other).met).toBe(false);
    expect(callTarget("tool-call-traced", row(8, 1.2, 4_400), other).met).toBeNull(); // its untraced row is not in the run
  });

  it("judges a traced row with rounds by the median of its rounds' paired ratios, not the ratio of medians", () => {
    // Round 2 ran in a slow spell for both rows: the medians of calls/s mix rounds, the pairs do not.
    const untraced = combineRounds([row(8, 1, 5_000), row(8, 1, 2_000), row(8, 1, 5_200)]);
    const traced = combineRounds([row(8, 1, 4_700), row(8, 1, 1_900), row(8, 1, 4_000)]);
    const result = callTarget("tool-call-binary-traced", traced, (name) => (name === "tool-call-binary" ? untraced : undefined));
    expect(result.target).toBe("calls/s ≥ 0.9× untraced (paired 0.940, of medians 0.800)");
    expect(result.met).toBe(true);
    const costly = combineRounds([row(8, 1, 4_000), row(8, 1, 1_900), row(8, 1, 4_000)]);
    expect(callTarget("tool-call-binary-traced", costly, (name) => (name === "tool-call-binary" ? untraced : undefined)).met).toBe(false);
  });

  it("prints the 95% interval of the paired ratios' median once there are six rounds or more", () => {
    const calls = [5_000, 5_100, 4_900, 5_200, 4_800, 5_000];
    const untraced = combineRounds(calls.map((c) => row(8, 1, c)));
    const shares = [0.95, 0.91, 0.97, 0.93, 0.9, 0.96];
    const traced = combineRounds(calls.map((c, i) => row(8, 1, c * shares[i]!)));
    const result = callTarget("tool-call-binary-traced", traced, (name) => (name === "tool-call-binary" ? untraced : undefined));
    expect(result.target).toMatch(/^calls\/s ≥ 0\.9× untraced \(paired 0\.9[35]0 \[95% 0\.900–0\.970\], of medians 0\.\d{3}\)$/);
  });

  it("holds the binary tool call's p50 at c=1 to 1.3× the official client's", () => {
    const official = row(1, 1, 1_000);
    expect(callTarget("tool-call-binary", row(1, 1.3, 700), () => official).met).toBe(true);
    expect(callTarget("tool-call-binary", row(1, 1.31, 700), () => official).met).toBe(false);
  });

  it("asks 3,000 calls/s of the binary gateway rows at c=32, and no throughput of the raw rows", () => {
    expect(callTarget("gateway-socket-binary", row(32, 5, 3_100), () => undefined).met).toBe(true);
    expect(callTarget("gateway-rest-binary", row(32, 5, 2_900), () => undefined).met).toBe(false);
    expect(callTarget("official-raw", row(32, 5, 100), () => undefined).met).toBeNull();
    expect(callTarget("binary-raw", row(32, 5, 100), () => undefined).met).toBeNull();
  });

  it("leaves out a target whose reference row is missing, and never counts a row with errors as met", () => {
    const alone = callTarget("tool-call-binary", row(8, 2, 3_000, 100), () => undefined);
    expect(alone.target).toBe("");
    expect(alone.met).toBeNull();
    const failing = { ...row(32, 5, 5_000), errors: 1 };
    expect(callTarget("gateway-rest-binary", failing, () => undefined).met).toBe(false);
  });
});
