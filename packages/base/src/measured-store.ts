import { ErrorType, ServiceError } from "@toolmesh/schema";
import type { ServiceMetrics, StoreOutcome } from "./metrics.js";
import { aroundMethods, whenSettled } from "./store-calls.js";

const outcomeOf = (err: unknown): StoreOutcome =>
  err instanceof ServiceError && err.type === ErrorType.unavailable ? "unavailable" : "error";

/**
 * `store` with every method call timed and counted in `metrics` (toolmesh_store_operations_total and
 * toolmesh_store_operation_seconds, labelled with the method's name). Wrap the store as the service uses
 * it, database errors already reported (reportUnreachableDatabase), so an unreachable database counts as
 * `unavailable` rather than `error`. Properties that are not methods pass through.
 */
export function measuredStore<T extends object>(store: T, metrics: ServiceMetrics): T {
  return aroundMethods(store, (operation, args, call) => {
    const started = performance.now();
    const done = (outcome: StoreOutcome) => metrics.storeOperation(operation, outcome, (performance.now() - started) / 1000);
    return whenSettled(() => call(args), {
      succeeded: () => done("ok"),
      failed: (err) => {
        done(outcomeOf(err));
        return err;
      },
    });
  });
}
