import { describe, expect, it } from "vitest";
import {
  DEFAULT_BROKER_MAX_MESSAGE_SIZE,
  DEFAULT_MAX_FRAME_SIZE,
  MessageTooLargeError,
  isExpired,
  messageSize,
  readDeadline,
  webSocketMessageLimit,
} from "../../src/index.js";

describe("the WebSocket transport's message size limit", () => {
  it("is the broker's maxMessageSize less metadata room when frames are large enough (toolmesh's brokers)", () => {
    expect(webSocketMessageLimit(DEFAULT_BROKER_MAX_MESSAGE_SIZE, DEFAULT_MAX_FRAME_SIZE)).toBe(6 * 1024 * 1024 - 1024);
  });

  it("is what fits a frame as base64 when frames are the smaller limit (Pulsar's defaults: 5 MiB, 1 MiB)", () => {
    const limit = webSocketMessageLimit(5 * 1024 * 1024, 1024 * 1024);
    expect(limit).toBe(((1024 * 1024 - 1024) / 4) * 3);
    expect(Buffer.alloc(limit).toString("base64").length).toBeLessThanOrEqual(1024 * 1024 - 1024);
  });

  it("counts payload, property names and values, and the key, in UTF-8 bytes", () => {
    expect(messageSize({ payload: Buffer.alloc(100), properties: { id: "é" }, key: "k" })).toBe(100 + 2 + 2 + 1);
  });

  it("names topic, size and limit in its error", () => {
    const err = new MessageTooLargeError("non-persistent://tg/request/joke", 8_000_123, 6_290_432, "a request");
    expect(err.message).toBe("a request of 8000123 bytes for non-persistent://tg/request/joke exceeds the limit of 6290432 bytes");
    expect(err).toMatchObject({
      name: "MessageTooLargeError",
      topic: "non-persistent://tg/request/joke",
      size: 8_000_123,
      limit: 6_290_432,
    });
  });
});

describe("request deadlines", () => {
  it("reads the deadline property as epoch ms and ignores what is not one", () => {
    expect(readDeadline({ deadline: "1767225600000" })).toBe(1_767_225_600_000);
    expect(readDeadline({})).toBeUndefined();
    expect(readDeadline({ deadline: "soon" })).toBeUndefined();
    expect(readDeadline({ deadline: "-5" })).toBeUndefined();
  });

  it("is expired only once the deadline has passed", () => {
    expect(isExpired({ deadline: "1000" }, 1001)).toBe(true);
    expect(isExpired({ deadline: "1000" }, 1000)).toBe(false);
    expect(isExpired({}, Number.MAX_SAFE_INTEGER)).toBe(false);
  });
});
