import { describe, expect, it } from "vitest";
import { FirstContact } from "../../src/first-contact.js";

describe("FirstContact", () => {
  it("doubles the timeout from 250 ms up to the usual one until the service answers, then keeps the usual one", () => {
    const timeouts = new FirstContact(5_000);
    expect(Array.from({ length: 7 }, () => timeouts.timeout())).toEqual([250, 500, 1_000, 2_000, 4_000, 5_000, 5_000]);
    timeouts.answered();
    expect([timeouts.timeout(), timeouts.timeout()]).toEqual([5_000, 5_000]);
  });

  it("starts at the usual timeout when that is shorter than the first, and gives the usual one at once after an early answer", () => {
    expect(new FirstContact(100).timeout()).toBe(100);
    const early = new FirstContact(10_000, 400);
    expect(early.timeout()).toBe(400);
    early.answered();
    expect(early.timeout()).toBe(10_000);
  });
});
