import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BrokerDrops } from "../../src/index.js";

// An admin API double: refuses the topic stats (401) until told otherwise, then answers them; or, when
// `answer` says so, fails them (500) or answers something that is not topic stats.
let server: Server;
let url: string;
let refusing = true;
let answer: "stats" | "busy" | "garbled" = "stats";
let asked = 0;

beforeAll(async () => {
  server = createServer((_request, response) => {
    asked += 1;
    if (refusing) return void response.writeHead(401).end();
    if (answer === "busy") return void response.writeHead(500).end("Internal Server Error: stats timed out");
    if (answer === "garbled") return void response.writeHead(200, { "content-type": "application/json" }).end('{"msgInCounter":"many"}');
    response.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        msgInCounter: 5,
        subscriptions: { ours: { msgOutCounter: 5, consumers: [{ consumerName: "c", connectedSince: "t" }] } },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("BrokerDrops after the admin API refuses the stats", () => {
  it("waits refusalRetryMs, then asks again and counts once they are allowed", async () => {
    const seen: number[] = [];
    const drops = new BrokerDrops({
      webServiceUrl: url,
      subscriptions: () => [{ topic: "non-persistent://tg/request/joke", subscription: "ours" }],
      onDropped: (_topic, _subscription, count) => void seen.push(count),
      logger: pino({ level: "silent" }),
      intervalMs: 0,
      refusalRetryMs: 300,
    });
    await drops.poll();
    expect(asked).toBe(1);
    await drops.poll(); // within the wait: not asked
    expect(asked).toBe(1);
    refusing = false;
    await new Promise((resolve) => setTimeout(resolve, 350));
    await drops.poll();
    expect(asked).toBe(2);
    // The first reading of the subscription: 0 dropped.
    expect(seen).toEqual([0]);
    drops.stop();
  });
});

describe("BrokerDrops when the admin API fails the stats", () => {
  it("warns once per streak with the status and body (or what was wrong with the stats), then counts when they come back", async () => {
    refusing = false;
    const warnings: string[] = [];
    const logger = pino(
      { level: "debug" },
      { write: (line: string) => void (JSON.parse(line).level === 40 && warnings.push(JSON.parse(line).err)) },
    );
    const seen: number[] = [];
    const drops = new BrokerDrops({
      webServiceUrl: url,
      subscriptions: () => [{ topic: "non-persistent://tg/request/joke", subscription: "ours" }],
      onDropped: (_topic, _subscription, count) => void seen.push(count),
      logger,
      intervalMs: 0,
    });
    answer = "busy";
    await drops.poll();
    await drops.poll();
    expect(warnings).toEqual(["HTTP 500 Internal Server Error: stats timed out"]);
    answer = "stats";
    await drops.poll();
    expect(seen).toEqual([0]);
    answer = "garbled";
    await drops.poll();
    await drops.poll();
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toMatch(/^unexpected stats: /);
    drops.stop();
  });
});
