import { describe, expect, it } from "vitest";
import { TENANT, parseTopic, requestSubscription, requestTopic, responseTopic, tenantFromEnv, Topics } from "../../src/index.js";

describe("topics", () => {
  it("names request and response topics as the design does", () => {
    expect(requestTopic("joke")).toBe(`non-persistent://${TENANT}/request/joke`);
    expect(responseTopic("mcp-tool")).toBe(`non-persistent://${TENANT}/response/mcp-tool`);
    expect(requestSubscription("joke-service")).toBe("joke-service-request");
    expect(Topics.configNotify).toBe(`non-persistent://${TENANT}/notify/config`);
  });

  it("uses tenant tg unless TOOLMESH_TENANT names another, and refuses a bad one", () => {
    expect(tenantFromEnv(undefined)).toBe("tg");
    expect(tenantFromEnv("")).toBe("tg");
    expect(tenantFromEnv("staging")).toBe("staging");
    expect(() => tenantFromEnv("a/b")).toThrow(/not a valid tenant name/);
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
