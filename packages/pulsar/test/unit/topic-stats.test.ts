import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TopicStatsReader } from "../../src/index.js";

// An admin API double answering by topic name: each name is one of the answers a broker (or something
// standing where the broker should be) gives.
const answers: Record<string, [number, string]> = {
  loaded: [
    200,
    JSON.stringify({
      msgInCounter: 3,
      publishers: [{ producerName: "p" }],
      subscriptions: { svc: { msgOutCounter: 3, consumers: [{ consumerName: "c" }] } },
    }),
  ],
  unloaded: [404, JSON.stringify({ reason: "Topic non-persistent://tg/request/unloaded not found" })],
  "no-namespace": [404, JSON.stringify({ reason: "Namespace not found" })],
  "proxy-page": [404, "<html><title>Error 404 Not Found</title></html>"],
  refused: [403, ""],
  garbled: [200, JSON.stringify({ msgInCounter: "many" })],
};
let server: Server;
let reader: TopicStatsReader;
const asked: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    asked.push(request.url!);
    const [status, body] = answers[request.url!.split("/")[6]!] ?? [500, "?"];
    response.writeHead(status, { "content-type": body.startsWith("{") ? "application/json" : "text/html" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  reader = new TopicStatsReader({ webServiceUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` });
});
afterAll(() => {
  reader.close();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("TopicStatsReader", () => {
  it("reads a loaded topic's stats from the admin path of its persistence", async () => {
    expect(await reader.read("persistent://tg/request/loaded")).toEqual({
      kind: "stats",
      stats: {
        msgInCounter: 3,
        publishers: [{ producerName: "p" }],
        subscriptions: { svc: { msgOutCounter: 3, consumers: [{ consumerName: "c" }] } },
      },
    });
    expect(asked.at(-1)).toBe("/admin/v2/persistent/tg/request/loaded/stats");
  });

  it("calls a topic absent only on the broker's own 'Topic … not found'", async () => {
    expect(await reader.read("non-persistent://tg/request/unloaded")).toEqual({ kind: "absent" });
    expect(await reader.read("non-persistent://tg/request/no-namespace")).toEqual({
      kind: "failed",
      reason: 'HTTP 404 {"reason":"Namespace not found"}',
    });
    expect(await reader.read("non-persistent://tg/request/proxy-page")).toMatchObject({
      kind: "failed",
      reason: expect.stringMatching(/^HTTP 404 <html>/),
    });
  });

  it("reports a refusal and stats it cannot read", async () => {
    expect(await reader.read("non-persistent://tg/request/refused")).toEqual({ kind: "refused", status: 403 });
    expect(await reader.read("non-persistent://tg/request/garbled")).toMatchObject({
      kind: "failed",
      reason: expect.stringMatching(/^unexpected stats: /),
    });
  });
});
