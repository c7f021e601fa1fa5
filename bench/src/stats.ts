import { readFileSync } from "node:fs";
import { PerformanceObserver } from "node:perf_hooks";
import { binomialDistribution } from "simple-statistics";

/** Shared measurement helpers: a bounded closed-loop load generator, percentiles, CPU/wall timing. */

export interface LoadOptions {
  concurrency: number;
  /** Measured calls (fixed count). */
  calls: number;
  /** Calls run first at the same concurrency and thrown away (JIT, connection pools, broker caches). */
  warmup: number;
  /** Hard cap on the measured phase: workers stop taking new calls after it (the run reports `capped`). */
  capMs: number;
  /** Other processes whose CPU is charged to the calls (the broker, the gateway), by name. */
  pids?: Record<string, number | undefined>;
}

/** Where the CPU of the measured phase went, in µs per completed call, and how busy the machine was. */
export interface CpuShares {
  /** `bench` (this process), each named pid, and `others` (the rest of the machine: other sessions, the kernel). */
  perCallUs: Record<string, number>;
  /** All cores together: 100 = every core busy the whole time. */
  machineBusyPct: number;
  /** This process's garbage-collection pauses, in µs per completed call (part of `bench`). */
  gcPauseUs: number;
}

export interface LoadResult {
  concurrency: number;
  /** Calls that completed with the expected answer. */
  ok: number;
  errors: number;
  firstError?: string;
  capped: boolean;
  wallMs: number;
  callsPerSec: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
  /** CPU per completed call during the measured phase, by process. */
  cpu: CpuShares;
}

const TICK_US = 10_000; // USER_HZ is 100 on Linux: /proc counts CPU time in 10 ms ticks

/** utime + stime of a process, in µs (undefined when it is gone or not ours to read). */
export function procCpuUs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command (which may hold spaces) start after the last ')'; utime, stime are 14, 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * TICK_US;
  } catch {
    return undefined;
  }
}

/** Busy and total CPU time of the whole machine (all cores), in µs. */
export function machineCpuUs(): { busy: number; total: number } {
  const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!;
  const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = ticks.reduce((a, b) => a + b, 0);
  const idle = ticks[3]! + ticks[4]!; // idle + iowait
  return { busy: (total - idle) * TICK_US, total: total * TICK_US };
}

// Garbage-collection pauses of this process so far, in ms (V8 reports each one as a `gc` performance entry).
let gcPauseMs = 0;
new PerformanceObserver((entries) => {
  for (const entry of entries.getEntries()) gcPauseMs += entry.duration;
}).observe({ entryTypes: ["gc"] });

/** Starts a CPU meter; the returned function gives the shares since the start for `calls` calls. */
export function cpuMeter(pids: Record<string, number | undefined> = {}): (calls: number) => CpuShares {
  const own = process.cpuUsage();
  const gcBefore = gcPauseMs;
  const machine = machineCpuUs();
  const before = Object.entries(pids).map(([name, pid]) => ({ name, pid, us: pid ? procCpuUs(pid) : undefined }));
  return (calls) => {
    const n = Math.max(1, calls);
    const perCallUs: Record<string, number> = { bench: cpuMicros(own) / n };
    const machineNow = machineCpuUs();
    let known = perCallUs.bench! * n;
    for (const { name, pid, us } of before) {
      const now = pid ? procCpuUs(pid) : undefined;
      if (us === undefined || now === undefined) continue;
      perCallUs[name] = (now - us) / n;
      known += now - us;
    }
    const busy = machineNow.busy - machine.busy;
    perCallUs.others = Math.max(0, busy - known) / n;
    const total = machineNow.total - machine.total;
    return { perCallUs, machineBusyPct: total > 0 ? (busy / total) * 100 : Number.NaN, gcPauseUs: ((gcPauseMs - gcBefore) * 1000) / n };
  };
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

/** CPU time (µs, user + system) used by this process since `since`. */
export function cpuMicros(since?: NodeJS.CpuUsage): number {
  const usage = process.cpuUsage(since);
  return usage.user + usage.system;
}

/** Runs `fn` once and returns its wall and process CPU time in ms. */
export async function timed<T>(fn: () => T | Promise<T>): Promise<{ value: T; wallMs: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const value = await fn();
  return { value, wallMs: performance.now() - started, cpuMs: cpuMicros(cpu) / 1000 };
}

async function drive(
  call: (i: number) => Promise<void>,
  concurrency: number,
  count: number,
  deadline: number,
  latencies: number[] | undefined,
  onError: (err: unknown) => void,
): Promise<boolean> {
  let next = 0;
  let capped = false;
  const worker = async () => {
    while (next < count) {
      if (performance.now() > deadline) {
        capped = true;
        return;
      }
      const i = next++;
      const started = performance.now();
      try {
        await call(i);
        latencies?.push(performance.now() - started);
      } catch (err) {
        onError(err);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return capped;
}

/**
 * Closed loop: `concurrency` workers each take the next call index until `calls` are done (or the cap
 * passes). Latency is measured per call from just before it starts to its completion.
 */
export async function runLoad(call: (i: number) => Promise<void>, options: LoadOptions): Promise<LoadResult> {
  let errors = 0;
  let firstError: string | undefined;
  const onError = (err: unknown) => {
    errors += 1;
    firstError ??= err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  };
  // Warm-up indices are offset so measured calls still carry arguments never seen before.
  const offset = 10_000_000 * options.concurrency;
  await drive(
    (i) => call(offset + i),
    options.concurrency,
    options.warmup,
    performance.now() + options.capMs,
    undefined,
    () => {},
  );

  const latencies: number[] = [];
  const meter = cpuMeter(options.pids);
  const started = performance.now();
  const capped = await drive(call, options.concurrency, options.calls, started + options.capMs, latencies, onError);
  const wallMs = performance.now() - started;
  const cpu = meter(latencies.length);
  return summarize(latencies, { concurrency: options.concurrency, errors, firstError, capped, wallMs, cpu });
}

/** The figures of one measured phase from its latencies (ms, one per call that completed correctly). */
export function summarize(
  latencies: number[],
  phase: { concurrency: number; errors: number; firstError?: string; capped: boolean; wallMs: number; cpu: CpuShares },
): LoadResult {
  const sorted = Float64Array.from(latencies).sort();
  const sum = latencies.reduce((a, b) => a + b, 0);
  const { firstError, ...rest } = phase;
  return {
    ...rest,
    ok: latencies.length,
    ...(firstError ? { firstError } : {}),
    callsPerSec: (latencies.length / phase.wallMs) * 1000,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
    mean: latencies.length ? sum / latencies.length : Number.NaN,
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return percentile(sorted, 50);
}

/** A promise that rejects after `ms` unless `promise` settles first (the timer never keeps the process up). */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

export interface CombinedResult extends LoadResult {
  rounds: LoadResult[];
}

/**
 * Several rounds of one measurement as one: the median of each figure across rounds (so one round
 * disturbed by something else on the machine does not set the result), errors added up.
 */
export function combineRounds(rounds: LoadResult[]): CombinedResult {
  const med = (pick: (r: LoadResult) => number) => median(rounds.map(pick));
  const names = [...new Set(rounds.flatMap((r) => Object.keys(r.cpu.perCallUs)))];
  const errors = rounds.reduce((a, r) => a + r.errors, 0);
  const firstError = rounds.find((r) => r.firstError)?.firstError;
  return {
    concurrency: rounds[0]!.concurrency,
    ok: rounds.reduce((a, r) => a + r.ok, 0),
    errors,
    ...(firstError ? { firstError } : {}),
    capped: rounds.some((r) => r.capped),
    wallMs: rounds.reduce((a, r) => a + r.wallMs, 0),
    callsPerSec: med((r) => r.callsPerSec),
    p50: med((r) => r.p50),
    p90: med((r) => r.p90),
    p99: med((r) => r.p99),
    max: Math.max(...rounds.map((r) => r.max)),
    mean: med((r) => r.mean),
    cpu: {
      perCallUs: Object.fromEntries(names.map((n) => [n, median(rounds.map((r) => r.cpu.perCallUs[n]).filter((v) => v !== undefined))])),
      machineBusyPct: med((r) => r.cpu.machineBusyPct),
      gcPauseUs: med((r) => r.cpu.gcPauseUs),
    },
    rounds,
  };
}

/**
 * A distribution-free confidence interval for the median of `values` (at least `level`, default 95%):
 * the k-th smallest and k-th largest values, with k the largest rank such that fewer than k of n values
 * fall below the median with probability at most (1 - level) / 2 (Binomial(n, 1/2)). Undefined when n is
 * too small for any such k (fewer than 6 values at 95%). It assumes nothing about how the values spread,
 * which suits round-to-round noise on a shared machine.
 */
export function medianInterval(values: number[], level = 0.95): [number, number] | undefined {
  const n = values.length;
  if (n === 0) return undefined;
  const tail = (1 - level) / 2;
  // binomialDistribution lists P(X = i) from i = 0 and stops once the rest is negligible.
  const pmf = binomialDistribution(n, 0.5) ?? [];
  let below = 0; // P(X <= k - 1)
  let k = 0;
  while (k < pmf.length && below + pmf[k]! <= tail) below += pmf[k++]!;
  if (k === 0) return undefined;
  const sorted = [...values].sort((x, y) => x - y);
  return [sorted[k - 1]!, sorted[n - k]!];
}

/** One row's calls/s as a share of another's, paired by round: the median ratio and its 95% interval. */
export interface PairedShare {
  median: number;
  /** medianInterval of the rounds' ratios; absent with fewer than 6 rounds. */
  interval?: [number, number];
}

/**
 * `a`'s calls/s as a share of `b`'s, paired by round: the median of each round's ratio. The two were
 * measured back to back in each round, so a slow spell of the machine that spans a pair cancels out,
 * where the ratio of the two medians still carries it. Undefined unless both have the same rounds.
 */
export function pairedCallsPerSecShare(a: LoadResult, b: LoadResult): PairedShare | undefined {
  const ra = (a as Partial<CombinedResult>).rounds;
  const rb = (b as Partial<CombinedResult>).rounds;
  if (!ra || !rb || ra.length !== rb.length || ra.length === 0) return undefined;
  const ratios = ra.map((round, i) => round.callsPerSec / rb[i]!.callsPerSec);
  const interval = medianInterval(ratios);
  return { median: median(ratios), ...(interval ? { interval } : {}) };
}
