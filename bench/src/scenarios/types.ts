import type { LoadOptions, LoadResult } from "../stats.js";

/** What the runner hands every scenario, and what a call scenario hands back. */
export interface BenchContext {
  /** The broker's web service, e.g. http://127.0.0.1:18080. */
  webServiceUrl: string;
  /** The broker's binary protocol, e.g. pulsar://127.0.0.1:16650 (PULSAR_SERVICE_URL, else the cluster's). */
  serviceUrl: string;
  /** This run's own Pulsar tenant (TOOLMESH_TENANT), so concurrent test runs never meet it. */
  tenant: string;
  /** Where profiles of child processes go when BENCH_CPU_PROF is set. */
  profileDir: string | undefined;
}

/** One round trip per `call(i)`; throws when the reply is missing or wrong. */
export interface CallTarget {
  call(i: number): Promise<void>;
  /**
   * A target whose load runs elsewhere (the official client's loop runs in Python, so no per-call IPC is
   * measured) drives a whole level itself, warm-up included, instead of `call`.
   */
  runLoad?(options: LoadOptions): Promise<LoadResult>;
  /** Called before and after each level this target runs (the traced rows turn tracing on only then). */
  enter?(): void;
  leave?(): void;
  close(): Promise<void>;
}
