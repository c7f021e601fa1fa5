import { describe, expect, it } from "vitest";
import { TopicLayout, parseTopic, queueTopic, requestSubscription, tenantFromEnv } from "../../src/index.js";

describe("topics", () => {
  it("names request and response topics as the design does, in tenant tg by default", () => {
    const topics = new TopicLayout();
    expect(topics.request("joke")).toBe("non-persistent://tg/request/joke");
    expect(topics.response("mcp-tool")).toBe("non-persistent://tg/response/mcp-tool");
    expect(requestSubscription("joke-service")).toBe("joke-service-request");
    expect(topics.configNotify).toBe("non-persistent://tg/notify/config");
    expect(topics.toolRegistryNotify).toBe("non-persistent://tg/notify/tool-registry");
    expect(topics.toolAnnouncements).toBe("persistent://tg/flow/tool-announcements");
  });

  it("builds every topic of one system from its tenant and its mcp-tool topic name", () => {
    const topics = new TopicLayout({ tenant: "staging", mcpTool: "mcp-tool-b" });
    expect(topics.pair("agent")).toEqual({
      requestTopic: "non-persistent://staging/request/agent",
      responseTopic: "non-persistent://staging/response/agent",
    });
    expect(topics.mcpTool).toEqual({
      requestTopic: "non-persistent://staging/request/mcp-tool-b",
      responseTopic: "non-persistent://staging/response/mcp-tool-b",
    });
    expect(topics.workspaceConfig("default")).toEqual({
      requestTopic: "non-persistent://staging/request/config:default",
      responseTopic: "non-persistent://staging/response/config:default",
    });
    expect(topics.toolAnnouncements).toBe("persistent://staging/flow/tool-announcements");
    expect(() => new TopicLayout({ tenant: "a/b" })).toThrow(/not a valid tenant name/);
  });

  it("uses tenant tg unless TOOLMESH_TENANT names another, and refuses a bad one", () => {
    expect(tenantFromEnv(undefined)).toBe("tg");
    expect(tenantFromEnv("")).toBe("tg");
    expect(tenantFromEnv("staging")).toBe("staging");
    expect(() => tenantFromEnv("a/b")).toThrow(/not a valid tenant name/);
  });

  it("maps TrustGraph queue ids as its Pulsar backend does, and keeps full topic names", () => {
    expect(queueTopic("request:tg:joke")).toBe("non-persistent://tg/request/joke");
    expect(queueTopic("response:tg:joke")).toBe("non-persistent://tg/response/joke");
    expect(queueTopic("notify:tg:config")).toBe("non-persistent://tg/notify/config");
    expect(queueTopic("flow:tg:x")).toBe("persistent://tg/flow/x");
    // Only the first two colons split: the rest belongs to the topic (TrustGraph's per-workspace queues).
    expect(queueTopic("request:tg:config:default")).toBe("non-persistent://tg/request/config:default");
    // The topicspace is the tenant as written, whatever TOOLMESH_TENANT says.
    expect(queueTopic("request:other:mcp-tool-tg")).toBe("non-persistent://other/request/mcp-tool-tg");
    expect(queueTopic("non-persistent://tg/request/joke")).toBe("non-persistent://tg/request/joke");
    expect(queueTopic("persistent://a/b/c")).toBe("persistent://a/b/c");
  });

  it("refuses queues Pulsar could not use, naming them", () => {
    expect(() => queueTopic("joke")).toThrow(
      "invalid topic name 'joke': expected class:topicspace:topic (e.g. request:tg:joke) or a full topic name",
    );
    expect(() => queueTopic("request:tg")).toThrow(/expected class:topicspace:topic/);
    expect(() => queueTopic("queue:tg:joke")).toThrow(
      "invalid topic name 'queue:tg:joke': class 'queue' is not one of flow, request, response, notify",
    );
    expect(() => queueTopic("__proto__:tg:joke")).toThrow(/class '__proto__' is not one of/);
    expect(() => queueTopic("request::joke")).toThrow(/topicspace and topic must be non-empty/);
    expect(() => queueTopic("request:tg:a/b")).toThrow(/no '\/'/);
    expect(() => queueTopic("kafka://a/b/c")).toThrow(
      "invalid topic name 'kafka://a/b/c': expected {persistent|non-persistent}://tenant/namespace/topic",
    );
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
