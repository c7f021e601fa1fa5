import { ErrorType, ServiceError } from "@toolmesh/schema";
import type { ServiceMetrics, StoreOutcome } from "./metrics.js";

const outcomeOf = (err: unknown): StoreOutcome =>
  err instanceof ServiceError && err.type === ErrorType.unavailable ? "unavailable" : "error";

/**
 * `store` with every method call timed and counted in `metrics` (toolmesh_store_operations_total and
 * toolmesh_store_operation_seconds, labelled with the method's name). Wrap the store as the service uses
 * it, database errors already reported (reportUnreachableDatabase), so an unreachable database counts as
 * `unavailable` rather than `error`. Properties that are not methods pass through.
 */
export function measuredStore<T extends object>(store: T, metrics: ServiceMetrics): T {
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property);
      if (typeof value !== "function" || typeof property !== "string") return value;
      return (...args: unknown[]) => {
        const started = performance.now();
        const done = (outcome: StoreOutcome) => metrics.storeOperation(property, outcome, (performance.now() - started) / 1000);
        let result: unknown;
        try {
          result = value.apply(target, args);
        } catch (err) {
          done(outcomeOf(err));
          throw err;
        }
        if (!(result instanceof Promise)) {
          done("ok");
          return result;
        }
        return result.then(
          (resolved: unknown) => {
            done("ok");
            return resolved;
          },
          (err: unknown) => {
            done(outcomeOf(err));
            throw err;
          },
        );
      };
    },
  });
}
