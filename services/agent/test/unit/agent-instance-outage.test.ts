import pino from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AgentInstance } from "../../src/agent-instance.js";
import type { RunStore } from "../../src/run-store/index.js";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** The calls AgentInstance makes of its store, failing while `down` (the database away). */
function storeThatGoesAway() {
  const state = { down: false, judged: [] as number[] };
  const refuse = () => Promise.reject(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }));
  const store = {
    instanceId: "host-1-abcdef12",
    heartbeat: () => (state.down ? refuse() : Promise.resolve()),
    failOrphanedRuns: (staleBefore: number) => {
      if (state.down) return refuse();
      state.judged.push(staleBefore);
      return Promise.resolve([]);
    },
    retire: () => Promise.resolve([]),
  } as unknown as RunStore;
  return { store, state };
}

describe("AgentInstance after its database was away", () => {
  it("judges other instances' runs at start and on every beat, then not until a whole stale period after the database is back", async () => {
    const { store, state } = storeThatGoesAway();
    const instance = new AgentInstance({ store, logger: pino({ level: "silent" }), heartbeatMs: 1_000, staleAfterMs: 5_000 });
    await instance.start();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(state.judged).toHaveLength(3);

    state.down = true;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(state.judged).toHaveLength(3);

    // Back: the beats succeed, but the others, whose beats failed just as long, are not judged yet.
    state.down = false;
    await vi.advanceTimersByTimeAsync(4_000);
    expect(state.judged).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(state.judged.length).toBeGreaterThan(3);
    await instance.stop();
  });
});
