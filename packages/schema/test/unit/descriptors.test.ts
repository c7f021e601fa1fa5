import { describe, expect, it } from "vitest";
import {
  McpDescriptor,
  PersistentQueueId,
  ToolDescriptor,
  ToolServiceDescriptor,
  ToolSourceDescriptor,
  argumentsJsonSchema,
  TopicLayout,
  storedDescriptorSchema,
  trustGraphOnlyToolType,
  toolServiceConfig,
  toolServiceTopics,
} from "../../src/index.js";

const topics = new TopicLayout({ tenant: "staging" });
const resolved = (value: unknown) => toolServiceTopics(ToolServiceDescriptor.parse(value), topics);

describe("tool-service descriptor", () => {
  it("normalises the seed form", () => {
    const d = ToolServiceDescriptor.parse({
      id: "joke-service",
      topic: "joke",
      "config-params": [{ name: "style", required: false }],
    });
    expect(d).toEqual({
      id: "joke-service",
      topic: "joke",
      requestQueue: undefined,
      responseQueue: undefined,
      configParams: [{ name: "style", required: false }],
    });
    // A topic name is in the system's own tenant, whichever that is.
    expect(toolServiceTopics(d, topics)).toEqual({
      requestTopic: "non-persistent://staging/request/joke",
      responseTopic: "non-persistent://staging/response/joke",
    });
  });

  it("normalises TrustGraph's form to the same thing", () => {
    const d = ToolServiceDescriptor.parse({
      id: "joke-service",
      "request-queue": "non-persistent://tg/request/joke",
      "response-queue": "non-persistent://tg/response/joke",
      "config-params": ["style"],
    });
    expect(toolServiceTopics(d, topics).requestTopic).toBe("non-persistent://tg/request/joke");
    expect(d.configParams).toEqual([{ name: "style", required: false }]);
  });

  it("maps TrustGraph queue ids to topics, as TrustGraph does", () => {
    expect(resolved({ id: "joke-service", "request-queue": "request:tg:joke", "response-queue": "response:tg:joke" })).toEqual({
      requestTopic: "non-persistent://tg/request/joke",
      responseTopic: "non-persistent://tg/response/joke",
    });
    expect(resolved({ id: "s", "request-queue": "flow:tg:jobs", "response-queue": "response:tg:jobs" }).requestTopic).toBe(
      "persistent://tg/flow/jobs",
    );
  });

  it("refuses a descriptor with no topic, a request queue without a response queue, or a queue Pulsar cannot use", () => {
    expect(ToolServiceDescriptor.safeParse({ id: "x" }).error?.issues[0]?.message).toMatch(/topic/);
    expect(ToolServiceDescriptor.safeParse({ id: "x", "request-queue": "request:tg:q" }).success).toBe(false);
    const bad = ToolServiceDescriptor.safeParse({ id: "x", "request-queue": "joke", "response-queue": "response:tg:joke" });
    expect(bad.error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`)).toEqual([
      "request-queue: invalid topic name 'joke': expected class:topicspace:topic (e.g. request:tg:joke) or a full topic name (non-persistent://tg/request/joke)",
    ]);
  });

  it("refuses a topic that is not one topic name (a '/' would make a catalog binding no reader accepts)", () => {
    for (const topic of ["a/b", "non-persistent://tg/request/joke"]) {
      const bad = ToolServiceDescriptor.safeParse({ id: "x", topic });
      expect(bad.error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`)).toEqual([
        `topic: '${topic}' is not a topic name: a name without '/' (a full topic name goes in request-queue and response-queue)`,
      ]);
    }
    expect(ToolServiceDescriptor.parse({ id: "x", topic: "config:default" }).topic).toBe("config:default");
  });
});

describe("queues named in configuration", () => {
  it("reads a persistent queue in either form and refuses a non-persistent one", () => {
    expect(PersistentQueueId.parse("flow:tg:tool-announcements")).toBe("persistent://tg/flow/tool-announcements");
    expect(PersistentQueueId.parse("persistent://tg/flow/x")).toBe("persistent://tg/flow/x");
    expect(PersistentQueueId.safeParse("request:tg:x").error?.issues[0]?.message).toBe(
      "must be a persistent queue: flow:<tenant>:<topic> or persistent://tenant/namespace/topic",
    );
    expect(PersistentQueueId.safeParse("x").success).toBe(false);
  });
});

describe("tool descriptor", () => {
  const tool = {
    type: "tool-service",
    name: "tell-joke",
    description: "Tell a joke",
    service: "joke-service",
    style: "pun",
    arguments: [{ name: "topic", type: "string", description: "what about" }],
  };

  it("keeps the tool's config values (unknown keys) and defaults argument fields", () => {
    const parsed = ToolDescriptor.parse(tool);
    expect(parsed).toMatchObject({ style: "pun", service: "joke-service" });
    expect(parsed.arguments[0]).toEqual({ name: "topic", type: "string", description: "what about", required: true });
  });

  it("requires the fields of its type", () => {
    expect(ToolDescriptor.safeParse({ ...tool, service: undefined }).success).toBe(false);
    expect(ToolDescriptor.safeParse({ type: "mcp-tool", name: "calc" }).success).toBe(false);
    expect(ToolDescriptor.safeParse({ type: "mcp-tool", name: "calc", "mcp-tool": "calculator" }).success).toBe(true);
    expect(ToolDescriptor.safeParse({ ...tool, type: "prompt" }).success).toBe(false);
    expect(ToolDescriptor.safeParse({ ...tool, type: "nope" }).error?.issues[0]?.message).toBe(
      "'type' must be one of tool-service, mcp-tool, text-completion, knowledge-query, prompt, structured-query, row-embeddings-query",
    );
    expect(ToolDescriptor.safeParse({ ...tool, name: "tell joke" }).success).toBe(false);
  });

  it("lets an mcp-tool tool name another MCP-tool gateway's queues (both or neither)", () => {
    const calc = { type: "mcp-tool", name: "calc", "mcp-tool": "calculator" };
    const routed = ToolDescriptor.parse({
      ...calc,
      "request-queue": "request:tg:mcp-tool-tg",
      "response-queue": "response:tg:mcp-tool-tg",
    });
    expect(routed).toMatchObject({
      "request-queue": "non-persistent://tg/request/mcp-tool-tg",
      "response-queue": "non-persistent://tg/response/mcp-tool-tg",
    });
    expect(ToolDescriptor.safeParse({ ...calc, "request-queue": "request:tg:mcp-tool-tg" }).error?.issues[0]?.message).toMatch(
      /both 'request-queue' and 'response-queue'/,
    );
    expect(ToolDescriptor.safeParse({ ...calc, "request-queue": "x", "response-queue": "response:tg:y" }).success).toBe(false);
  });

  it("stores tools of TrustGraph-only types as given and validates the types toolmesh executes", () => {
    expect(trustGraphOnlyToolType({ type: "knowledge-query", name: "kq" })).toBe("knowledge-query");
    expect(trustGraphOnlyToolType({ type: "mcp-tool" })).toBeNull();
    expect(trustGraphOnlyToolType(["knowledge-query"])).toBeNull();
    expect(storedDescriptorSchema("tool", { type: "row-embeddings-query", "schema-name": "s" })).toBeNull();
    expect(storedDescriptorSchema("tool", { type: "tool-service" })).toBe(ToolDescriptor);
    expect(storedDescriptorSchema("tool", { type: "nope" })).toBe(ToolDescriptor);
    expect(storedDescriptorSchema("prompt", {})).toBeNull();
    expect(storedDescriptorSchema("constructor", {})).toBeNull();
    expect(storedDescriptorSchema("mcp", {})).toBe(McpDescriptor);
  });

  it("sends the tool's values for the service's config-params, and refuses a missing required one", () => {
    const service = ToolServiceDescriptor.parse({
      id: "joke-service",
      topic: "joke",
      "config-params": [{ name: "style", required: true }, "language"],
    });
    expect(toolServiceConfig(ToolDescriptor.parse(tool), service)).toEqual({ style: "pun" });
    expect(() => toolServiceConfig(ToolDescriptor.parse({ ...tool, style: undefined }), service)).toThrow(
      "tool 'tell-joke' does not set 'style', which service 'joke-service' requires",
    );
  });

  it("turns the arguments into a JSON Schema", () => {
    expect(argumentsJsonSchema(ToolDescriptor.parse(tool).arguments)).toEqual({
      type: "object",
      properties: { topic: { type: "string", description: "what about" } },
      required: ["topic"],
      additionalProperties: false,
    });
  });
});

describe("mcp and tool-source descriptors", () => {
  it("accepts the design's mcp entry and refuses a non-http url", () => {
    expect(McpDescriptor.parse({ url: "http://host/mcp", "remote-name": "add", "auth-token": "t" })).toMatchObject({
      url: "http://host/mcp",
      "remote-name": "add",
      transport: "auto",
      headers: {},
    });
    expect(McpDescriptor.safeParse({ url: "file:///etc/passwd" }).success).toBe(false);
  });

  it("defaults a tool source to active", () => {
    expect(ToolSourceDescriptor.parse({ id: "jokes", manifest_url: "http://127.0.0.1:8700/tools/manifest" })).toEqual({
      id: "jokes",
      manifest_url: "http://127.0.0.1:8700/tools/manifest",
      active: true,
    });
  });
});
