import { describe, expect, it } from "vitest";
import { AsyncQueue } from "../../src/index.js";

describe("AsyncQueue", () => {
  it("yields pushed items in order, before and after the consumer waits", async () => {
    const queue = new AsyncQueue<number>();
    queue.push(1);
    const seen: number[] = [];
    const consumed = (async () => {
      for await (const item of queue) seen.push(item);
    })();
    queue.push(2);
    setTimeout(() => {
      queue.push(3);
      queue.end();
    }, 5);
    await consumed;
    expect(seen).toEqual([1, 2, 3]);
  });

  it("rethrows the error it ended with", async () => {
    const queue = new AsyncQueue<number>();
    queue.push(1);
    queue.end(new Error("stream failed"));
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const item of queue) seen.push(item);
      })(),
    ).rejects.toThrow("stream failed");
    expect(seen).toEqual([1]);
  });
});
