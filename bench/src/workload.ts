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

/** A raw round trip's reply body must carry the trivial tool's answer for call `i`. */
export function checkRawReply(i: number, body: unknown, what: string): void {
  const reply = body as { response?: string } | undefined;
  if (reply?.response !== benchAnswer(benchArgs(i)))
    throw new Error(`${what} ${i}: unexpected reply ${JSON.stringify(body).slice(0, 200)}`);
}

/** What a raw echo server answers to a tool-service request body (the trivial tool, with no toolmesh code). */
export function rawEchoReply(body: unknown): { error: null; response: string; end_of_stream: true } {
  const args = JSON.parse((body as { arguments: string }).arguments) as BenchArgs;
  return { error: null, response: benchAnswer(args), end_of_stream: true };
}
