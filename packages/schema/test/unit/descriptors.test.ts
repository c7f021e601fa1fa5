import { describe, expect, it } from "vitest";
import {
  McpDescriptor,
  ToolDescriptor,
  ToolServiceDescriptor,
  ToolSourceDescriptor,
  argumentsJsonSchema,
  requestTopic,
  responseTopic,
  toolServiceConfig,
} from "../../src/index.js";

describe("tool-service descriptor", () => {
  it("normalises the seed form", () => {
    const d = ToolServiceDescriptor.parse({
      id: "joke-service",
      topic: "joke",
      "config-params": [{ name: "style", required: false }],
    });
    expect(d).toEqual({
      id: "joke-service",
      requestTopic: requestTopic("joke"),
      responseTopic: responseTopic("joke"),
      configParams: [{ name: "style", required: false }],
    });
  });

  it("normalises TrustGraph's form to the same thing", () => {
    const d = ToolServiceDescriptor.parse({
      id: "joke-service",
      "request-queue": "non-persistent://tg/request/joke",
      "response-queue": "non-persistent://tg/response/joke",
      "config-params": ["style"],
    });
    expect(d.requestTopic).toBe("non-persistent://tg/request/joke");
    expect(d.configParams).toEqual([{ name: "style", required: false }]);
  });

  it("refuses a descriptor with no topic, or a request queue without a response queue", () => {
    expect(ToolServiceDescriptor.safeParse({ id: "x" }).error?.issues[0]?.message).toMatch(/topic/);
    expect(ToolServiceDescriptor.safeParse({ id: "x", "request-queue": "q" }).success).toBe(false);
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
    expect(ToolDescriptor.safeParse({ ...tool, name: "tell joke" }).success).toBe(false);
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
    expect(
      McpDescriptor.parse({ url: "http://host/mcp", "remote-name": "add", "auth-token": "t" }),
    ).toMatchObject({ url: "http://host/mcp", "remote-name": "add", transport: "auto", headers: {} });
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
