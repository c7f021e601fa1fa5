import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { FakeToolRegistry, MemoryBus, shoutRevision } from "@toolmesh/base/testing";
import { ServiceName } from "@toolmesh/schema";
import { RevisionCatalog } from "../../src/catalog.js";

// The MCP server may start before the tool registry (npm run up starts them together). Its first
// requests go out with short timeouts (250 ms, doubling) so a registry that subscribes a moment later is
// reached at once, not a whole MCP_REGISTRY_TIMEOUT later (and logged as waiting, not as a fault); once it answered, the usual timeout applies.
// A watcher on the registry's request topic reads each request's deadline (sent at now + timeout).

const bus = new MemoryBus();
afterAll(() => bus.close());

describe("the revision catalog before the tool registry is up", () => {
  it("asks with short, doubling timeouts until the registry answers, then with the usual one", async () => {
    const timeouts: number[] = [];
    await bus
      .client()
      .subscribe(
        { topic: bus.topics.pair(ServiceName.toolRegistry).requestTopic, subscription: "watcher", type: "Exclusive" },
        async (message) => void timeouts.push(Number(message.properties.deadline) - Date.now()),
      );
    const logged: Array<{ level: number; msg: string }> = [];
    const catalog = new RevisionCatalog({
      pulsar: bus.client(),
      topics: bus.topics,
      logger: pino({ level: "debug" }, { write: (line: string) => void logged.push(JSON.parse(line)) }),
      subscriber: "first-contact",
      timeoutMs: 6_000,
      pollMs: 60_000,
    });
    await catalog.start();
    await expect.poll(() => timeouts.length, { timeout: 3_000 }).toBeGreaterThanOrEqual(3);
    // Starting with the registry is normal: its first silence is an info line, not a warning.
    const waiting = logged.filter((line) => line.level >= 30).map(({ level, msg }) => ({ level, msg }));
    expect(waiting).toEqual([{ level: 30, msg: "waiting for the tool registry to answer" }]);
    await FakeToolRegistry.start(bus, [shoutRevision]);
    await expect.poll(() => catalog.reachable, { timeout: 5_000 }).toBe(true);
    const answeredAfter = timeouts.length;
    expect((await catalog.current()).revision_number).toBe(shoutRevision.revision_number);
    await catalog.close();
    // Within 50 ms below each (the deadline is taken just before sending), never above.
    const near = (expected: number, timeout: number) => timeout > expected - 50 && timeout <= expected;
    expect(timeouts.slice(0, 3).map((timeout, i) => near([250, 500, 1_000][i]!, timeout))).toEqual([true, true, true]);
    expect(near(6_000, timeouts[answeredAfter]!)).toBe(true);
  });
});
