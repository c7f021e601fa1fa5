import { describe, expect, it } from "vitest";
import { ServiceError } from "@toolmesh/schema";
import { reportUnreachableDatabase, unreachableDatabaseCode } from "../../src/database-outage.js";

const coded = (code: string, message = `boom ${code}`) => Object.assign(new Error(message), { code });

class FakeStore {
  #secret = 7;
  failure: unknown;
  get location(): string {
    return `db-${this.#secret}`;
  }
  async read(): Promise<number> {
    if (this.failure) throw this.failure;
    return this.#secret;
  }
  count(): number {
    if (this.failure) throw this.failure;
    return 1;
  }
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (this.failure) throw this.failure;
    return work();
  }
}

describe("unreachableDatabaseCode", () => {
  it("knows socket errors, the driver's connection errors and PostgreSQL's shutdown and connection states", () => {
    for (const code of ["ECONNREFUSED", "ECONNRESET", "CONNECTION_CLOSED", "CONNECT_TIMEOUT", "57P01", "57P03", "53300", "08006", "08001"])
      expect(unreachableDatabaseCode(coded(code)), code).toBe(code);
  });

  it("leaves query errors, other codes and non-errors alone", () => {
    for (const err of [
      coded("23505"),
      coded("42P01"),
      coded("40001"),
      coded("UNSAFE_TRANSACTION"),
      new Error("x"),
      "ECONNREFUSED",
      null,
      undefined,
      { code: 5 },
    ])
      expect(unreachableDatabaseCode(err)).toBeUndefined();
  });
});

describe("reportUnreachableDatabase", () => {
  it("answers a lost database as unavailable, naming its code, the driver's error kept as the cause", async () => {
    const inner = new FakeStore();
    const store = reportUnreachableDatabase(inner);
    const lost = coded("ECONNREFUSED", "connect ECONNREFUSED 10.0.0.5:5432");
    inner.failure = lost;
    const err = await store.read().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({
      type: "unavailable",
      status: 503,
      message: "the database cannot be reached (ECONNREFUSED); retry shortly",
      cause: lost,
    });
    expect(() => store.count()).toThrow(expect.objectContaining({ type: "unavailable" }));
  });

  it("passes other errors unchanged, and serves as the store does when nothing fails", async () => {
    const inner = new FakeStore();
    const store = reportUnreachableDatabase(inner);
    expect(await store.read()).toBe(7);
    expect(store.location).toBe("db-7");
    expect(store).toBeInstanceOf(FakeStore);
    const duplicate = coded("23505");
    inner.failure = duplicate;
    await expect(store.read()).rejects.toBe(duplicate);
    const own = new ServiceError("too-large", "over the limit");
    inner.failure = own;
    await expect(store.read()).rejects.toBe(own);
  });

  it("leaves what a callback throws alone (the work under a lock is not the database's), and translates the lock's own loss", async () => {
    const inner = new FakeStore();
    const store = reportUnreachableDatabase(inner);
    const brokerDown = coded("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:6650");
    await expect(store.exclusive(() => Promise.reject(brokerDown))).rejects.toBe(brokerDown);
    await expect(
      store.exclusive(() => {
        throw brokerDown;
      }),
    ).rejects.toBe(brokerDown);
    expect(await store.exclusive(async () => "done")).toBe("done");
    inner.failure = coded("57P01");
    await expect(store.exclusive(async () => "never")).rejects.toMatchObject({
      type: "unavailable",
      message: expect.stringContaining("57P01"),
    });
  });
});
