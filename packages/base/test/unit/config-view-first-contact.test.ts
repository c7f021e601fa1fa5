import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { ServiceName } from "@toolmesh/schema";
import { ConfigView } from "../../src/config-view.js";
import { FakeConfig, MemoryBus } from "../../src/testing/index.js";

// A service may start before the config service (npm run up, a Kubernetes rollout). A config request sent
// before config subscribes is dropped (request topics are non-persistent), so only its timeout tells: the
// view tries with short timeouts first (250 ms, then twice as long each time) and the usual one once
// config has answered. Until then a failure is logged as waiting, not as a fault. A watcher on config's request topic reads each request's deadline (sent at now +
// timeout), so the test sees the timeout of every try.

const bus = new MemoryBus();
afterAll(() => bus.close());

describe("ConfigView before the config service is up", () => {
  it("tries with short, doubling timeouts until config answers, then with the usual one", async () => {
    const tries: Array<{ timeoutMs: number }> = [];
    await bus
      .client()
      .subscribe(
        { topic: bus.topics.pair(ServiceName.config).requestTopic, subscription: "watcher", type: "Exclusive" },
        async (message) => {
          tries.push({ timeoutMs: Number(message.properties.deadline) - Date.now() });
        },
      );
    const logged: Array<{ level: number; msg: string }> = [];
    const logger = pino({ level: "debug" }, { write: (line: string) => void logged.push(JSON.parse(line)) });
    const view = new ConfigView(bus.client(), logger, {
      types: ["tool"],
      topics: bus.topics,
      subscriber: "first-contact",
      requestTimeoutMs: 4_000,
      pollIntervalMs: 60_000,
    });
    await view.start();
    await expect.poll(() => tries.length, { timeout: 3_000 }).toBeGreaterThanOrEqual(3);
    // Starting before config is normal: the first failure is an info line, never a warning or an error.
    const waiting = logged.filter((line) => line.level >= 30);
    expect(waiting.map(({ level, msg }) => ({ level, msg }))).toEqual([{ level: 30, msg: "waiting for the config service to answer" }]);
    await FakeConfig.start(bus);
    await view.whenReady();
    // A reload after config has answered (one asked for during the first load would coalesce with it).
    const beforeReload = tries.length;
    await expect
      .poll(async () => {
        await view.refresh();
        return tries.length;
      })
      .toBeGreaterThan(beforeReload);
    await view.close();
    const timeouts = tries.map((t) => t.timeoutMs);
    // Within 50 ms below each (the deadline is taken just before sending), never above.
    const near = (expected: number) => (timeout: number) => timeout > expected - 50 && timeout <= expected;
    expect(timeouts.slice(0, 3).map((t, i) => near([250, 500, 1_000][i]!)(t))).toEqual([true, true, true]);
    // The refresh after config answered used the usual timeout.
    expect(near(4_000)(timeouts.at(-1)!)).toBe(true);
  });
});
