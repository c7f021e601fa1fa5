import pino from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ClientPool } from "../../src/client-pool.js";

class FakeClient {
  closed = 0;
  constructor(readonly key: string) {}
  async close(): Promise<void> {
    this.closed += 1;
  }
}

const made: FakeClient[] = [];
const create = (key: string) => () => {
  const client = new FakeClient(key);
  made.push(client);
  return Promise.resolve(client);
};
const pool = (maxClients = 10, idleMs = 1_000) => new ClientPool<FakeClient>({ maxClients, idleMs, logger: pino({ level: "silent" }) });

/** Leases, awaits and releases: one finished call. */
async function call(clients: ClientPool<FakeClient>, key: string): Promise<FakeClient> {
  const lease = clients.lease(key, create(key));
  const client = await lease.client;
  lease.release();
  return client;
}

beforeEach(() => {
  made.length = 0;
  vi.useFakeTimers();
});
afterEach(() => vi.useRealTimers());

describe("ClientPool", () => {
  it("shares one client per key", async () => {
    const clients = pool();
    const a = await call(clients, "a");
    expect(await call(clients, "a")).toBe(a);
    expect(made).toHaveLength(1);
  });

  it("closes a client after it has been idle for idleMs, and makes a new one on the next use", async () => {
    const clients = pool(10, 1_000);
    const first = await call(clients, "a");
    await vi.advanceTimersByTimeAsync(999);
    expect(first.closed).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(first.closed).toBe(1);
    expect(clients.size).toBe(0);
    const second = await call(clients, "a");
    expect(second).not.toBe(first);
  });

  it("never closes a client while a call uses it; the idle time starts when the last call ends", async () => {
    const clients = pool(10, 1_000);
    const lease = clients.lease("a", create("a"));
    const client = await lease.client;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(client.closed).toBe(0);
    lease.release();
    lease.release(); // a second release is ignored
    await vi.advanceTimersByTimeAsync(1_000);
    expect(client.closed).toBe(1);
  });

  it("keeps at most maxClients, closing the least recently used idle one", async () => {
    const clients = pool(2);
    const a = await call(clients, "a");
    const b = await call(clients, "b");
    await call(clients, "a"); // now b is the least recently used
    await call(clients, "c");
    expect(b.closed).toBe(1);
    expect(a.closed).toBe(0);
    expect(clients.keys().sort()).toEqual(["a", "c"]);
  });

  it("goes over the bound only while every client is busy, and trims when calls end", async () => {
    const clients = pool(1);
    const a = clients.lease("a", create("a"));
    const b = clients.lease("b", create("b"));
    expect(clients.size).toBe(2);
    a.release();
    await vi.advanceTimersByTimeAsync(0);
    expect(clients.keys()).toEqual(["b"]);
    expect((await a.client).closed).toBe(1);
    b.release();
  });

  it("retain() closes the clients of keys that are gone; a busy one after its call", async () => {
    const clients = pool();
    const idle = await call(clients, "gone-idle");
    const busy = clients.lease("gone-busy", create("gone-busy"));
    const kept = await call(clients, "kept");
    clients.retain((key) => key === "kept");
    await vi.advanceTimersByTimeAsync(0);
    expect(idle.closed).toBe(1);
    expect((await busy.client).closed).toBe(0);
    busy.release();
    await vi.advanceTimersByTimeAsync(0);
    expect((await busy.client).closed).toBe(1);
    expect(kept.closed).toBe(0);
    expect(clients.keys()).toEqual(["kept"]);
  });

  it("does not keep a client whose creation failed", async () => {
    const clients = pool();
    const failing = clients.lease("a", () => Promise.reject(new Error("no broker")));
    await expect(failing.client).rejects.toThrow("no broker");
    failing.release();
    expect(clients.size).toBe(0);
    expect(await call(clients, "a")).toBeInstanceOf(FakeClient);
  });

  it("close() closes every client, busy ones included, once each", async () => {
    const clients = pool();
    const idle = await call(clients, "a");
    const busy = clients.lease("b", create("b"));
    await clients.close();
    busy.release();
    await vi.advanceTimersByTimeAsync(0);
    expect(idle.closed).toBe(1);
    expect((await busy.client).closed).toBe(1);
    expect(() => clients.lease("c", create("c"))).toThrow(/closed/);
  });

  it("close() does not wait for a client still opening, which closes once it opens", async () => {
    const clients = pool();
    let open!: (client: FakeClient) => void;
    const late = new FakeClient("late");
    const lease = clients.lease("late", () => new Promise<FakeClient>((resolve) => (open = resolve)));
    await clients.close();
    expect(late.closed).toBe(0);
    open(late);
    await lease.client;
    await vi.advanceTimersByTimeAsync(0);
    expect(late.closed).toBe(1);
  });
});
