import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { ABORTED, unlessAborted } from "../../src/index.js";

describe("unlessAborted", () => {
  it("gives the work's value when it settles first, and leaves no listener behind", async () => {
    const signal = new AbortController().signal;
    await expect(unlessAborted(Promise.resolve(7), signal)).resolves.toBe(7);
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  it("passes the work's failure on, and leaves no listener behind", async () => {
    const signal = new AbortController().signal;
    await expect(unlessAborted(Promise.reject(new Error("boom")), signal)).rejects.toThrow("boom");
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  it("gives ABORTED when the signal aborts while the work is pending", async () => {
    const controller = new AbortController();
    const pending = unlessAborted(new Promise<number>(() => undefined), controller.signal);
    controller.abort();
    await expect(pending).resolves.toBe(ABORTED);
  });

  it("gives ABORTED at once when the signal has already aborted, even for settled work", async () => {
    await expect(unlessAborted(Promise.resolve(1), AbortSignal.abort())).resolves.toBe(ABORTED);
  });

  it("without a signal is the work itself", async () => {
    await expect(unlessAborted(Promise.resolve("x"), undefined)).resolves.toBe("x");
  });
});
