import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BrokerDrops } from "../../src/index.js";

// An admin API double: refuses the topic stats (401) until told otherwise, then answers them.
let server: Server;
let url: string;
let refusing = true;
let asked = 0;

beforeAll(async () => {
  server = createServer((_request, response) => {
    asked += 1;
    if (refusing) return void response.writeHead(401).end();
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
