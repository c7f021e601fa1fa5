/**
 * The one workload every call scenario runs, so baseline and toolmesh do the same work: a tool-service
 * request with distinct arguments per call (no caching anywhere can help) and a trivial answer.
 * No toolmesh imports here: the raw baseline uses it too.
 */
export const BENCH_USER = "bench";

export interface BenchArgs {
  n: number;
  q: string;
}

export const benchArgs = (i: number): BenchArgs => ({ n: i, q: `query-${i}` });

/** The trivial tool's answer; the clients check it, so a wrong reply counts as an error. */
export const benchAnswer = (args: Partial<BenchArgs>): string => `ok ${String(args.n)} ${String(args.q)}`;

/** The tool-service request wire form (design §2): config and arguments are JSON-encoded strings. */
export const benchRequestWire = (i: number) => ({ user: BENCH_USER, config: "{}", arguments: JSON.stringify(benchArgs(i)) });
