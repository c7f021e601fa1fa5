/**
 * `store` with every method call passed through `around` (its name, its arguments, and a function that
 * makes the call with the arguments given); properties that are not methods pass through. Methods are read
 * off the store itself, so getters and methods see it (and its private fields) as `this`.
 */
export function aroundMethods<T extends object>(
  store: T,
  around: (method: string, args: unknown[], call: (args: unknown[]) => unknown) => unknown,
): T {
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => around(String(property), args, (passed) => value.apply(target, passed));
    },
  });
}

/**
 * Makes `call` and tells how it ended, synchronous or not (a synchronous call stays synchronous):
 * `succeeded()` once it returned or resolved; `failed(error)` once it threw or rejected, whose return is
 * thrown (or rejected with) instead.
 */
export function whenSettled(call: () => unknown, ends: { succeeded?: () => void; failed: (error: unknown) => unknown }): unknown {
  let result: unknown;
  try {
    result = call();
  } catch (err) {
    throw ends.failed(err);
  }
  if (!(result instanceof Promise)) {
    ends.succeeded?.();
    return result;
  }
  return result.then(
    (value: unknown) => {
      ends.succeeded?.();
      return value;
    },
    (err: unknown) => Promise.reject(ends.failed(err)),
  );
}
