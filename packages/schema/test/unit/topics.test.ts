import { describe, expect, it } from "vitest";
import { parseTopic, requestSubscription, requestTopic, responseTopic, Topics } from "../../src/index.js";

describe("topics", () => {
  it("names request and response topics as the design does", () => {
    expect(requestTopic("joke")).toBe("non-persistent://tg/request/joke");
    expect(responseTopic("mcp-tool")).toBe("non-persistent://tg/response/mcp-tool");
    expect(requestSubscription("joke-service")).toBe("joke-service-request");
    expect(Topics.configNotify).toBe("non-persistent://tg/notify/config");
  });

  it("parses full and bare topic names and refuses malformed ones", () => {
    expect(parseTopic("non-persistent://tg/request/joke")).toEqual({
      persistence: "non-persistent",
      tenant: "tg",
      namespace: "request",
      topic: "joke",
    });
    expect(parseTopic("events").namespace).toBe("default");
    expect(() => parseTopic("kafka://a/b/c")).toThrow(/invalid topic name/);
    expect(() => parseTopic("persistent://a/b")).toThrow(/invalid topic name/);
  });
});
