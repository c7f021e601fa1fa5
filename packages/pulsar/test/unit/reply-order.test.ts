import { describe, expect, it } from "vitest";
import { ReplyOrder } from "../../src/reply-order.js";

describe("ReplyOrder", () => {
  it("gives numbered replies back in their order, holding the ones that came early", () => {
    const order = new ReplyOrder<string>();
    expect(order.accept("2", "c")).toEqual([]);
    expect(order.accept("1", "b")).toEqual([]);
    expect(order.accept("0", "a")).toEqual(["a", "b", "c"]);
    expect(order.accept("3", "d")).toEqual(["d"]);
  });

  it("drops a duplicate, whether already given or still held", () => {
    const order = new ReplyOrder<string>();
    expect(order.accept("0", "a")).toEqual(["a"]);
    expect(order.accept("0", "a again")).toEqual([]);
    expect(order.accept("2", "c")).toEqual([]);
    expect(order.accept("2", "c again")).toEqual([]);
    expect(order.accept("1", "b")).toEqual(["b", "c"]);
  });

  it("takes unnumbered replies (TrustGraph's servers send no number) and bad numbers as they come", () => {
    const order = new ReplyOrder<string | undefined>();
    expect(order.accept(undefined, "x")).toEqual(["x"]);
    expect(order.accept("-1", "y")).toEqual(["y"]);
    expect(order.accept("one", "z")).toEqual(["z"]);
    expect(order.accept("0", undefined)).toEqual([undefined]);
  });
});
