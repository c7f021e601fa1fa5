import { once } from "node:events";
import type { AddressInfo, Socket } from "node:net";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { ReconnectingLink } from "../../src/ws/link.js";

describe("ReconnectingLink writes", () => {
  let cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const step of cleanup.reverse()) await step();
    cleanup = [];
  });

  it("sends the frames of one event-loop turn in one TCP write, in order", async () => {
    const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    cleanup.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    await once(server, "listening");
    const received: string[] = [];
    server.on("connection", (socket) => socket.on("message", (data) => received.push(data.toString())));

    const { port } = server.address() as AddressInfo;
    const link = new ReconnectingLink({
      url: `ws://127.0.0.1:${port}`,
      label: "test",
      logger: pino({ level: "silent" }),
      onFrame: () => {},
    });
    cleanup.push(() => link.close());
    await link.start();
    // The TCP socket under the WebSocket (private; read here only to see when it writes).
    const tcp = (link as unknown as { tcp: Socket }).tcp;

    for (const frame of ["one", "two", "three"]) expect(link.send(frame)).toBe(true);
    // Held back (corked, buffered) while this turn may still add frames...
    expect(tcp.writableCorked).toBe(1);
    expect(tcp.writableLength).toBeGreaterThan(0);
    await new Promise((resolve) => setImmediate(resolve));
    // ...and handed to the kernel together once the turn's callbacks are done.
    expect(tcp.writableCorked).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(received).toEqual(["one", "two", "three"]);

    link.send("four");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(received).toEqual(["one", "two", "three", "four"]);
  });
});
