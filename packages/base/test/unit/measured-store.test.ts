import { describe, expect, it } from "vitest";
import { ErrorType, ServiceError } from "@toolmesh/schema";
import { ServiceMetrics, measuredStore } from "../../src/index.js";

/** A store with a method of each kind: async, sync, failing as unreachable, failing otherwise. */
class FakeStore {
  readonly location = "memory";
  async version(): Promise<number> {
    return 7;
  }
  keys(): string[] {
    return ["a"];
  }
  async write(): Promise<never> {
    throw new ServiceError(ErrorType.unavailable, "the database cannot be reached (ECONNREFUSED); retry shortly");
  }
  get(): never {
    throw new Error("boom");
  }
}

/** The value of the sample of `name` whose labels include every one of `labels`, from the Prometheus text. */
async function sample(metrics: ServiceMetrics, name: string, labels: Record<string, string>): Promise<number | undefined> {
  for (const line of (await metrics.registry.metrics()).split("\n")) {
    const match = /^(\w+)\{(.*)\} (\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    if (Object.entries(labels).every(([k, v]) => match[2]!.includes(`${k}="${v}"`))) return Number(match[3]);
  }
  return undefined;
}

describe("measuredStore", () => {
  it("counts every method call by outcome and times it, and passes results, errors and properties through", async () => {
    const metrics = new ServiceMetrics("test");
    const store = measuredStore(new FakeStore(), metrics);
    expect(store.location).toBe("memory");
    expect(await store.version()).toBe(7);
    expect(await store.version()).toBe(7);
    expect(store.keys()).toEqual(["a"]);
    await expect(store.write()).rejects.toThrow(/cannot be reached/);
    expect(() => store.get()).toThrow("boom");

    const count = (operation: string, outcome: string) => sample(metrics, "toolmesh_store_operations_total", { operation, outcome });
    expect(await count("version", "ok")).toBe(2);
    expect(await count("keys", "ok")).toBe(1);
    expect(await count("write", "unavailable")).toBe(1);
    expect(await count("get", "error")).toBe(1);
    expect(await sample(metrics, "toolmesh_store_operation_seconds_count", { operation: "version" })).toBe(2);
    expect(await sample(metrics, "toolmesh_store_operation_seconds_count", { operation: "write" })).toBe(1);
  });
});
