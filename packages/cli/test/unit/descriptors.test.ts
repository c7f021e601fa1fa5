import { ToolDescriptor, ToolServiceDescriptor, TopicLayout, toolServiceTopics } from "@toolmesh/schema";
import { describe, expect, it } from "vitest";
import {
  buildMcpDescriptor,
  buildToolDescriptor,
  buildToolServiceDescriptor,
  checkConfigValue,
  readStored,
} from "../../src/descriptors.js";

describe("buildToolServiceDescriptor", () => {
  it("builds the seed form from --topic and --config-param", () => {
    const descriptor = buildToolServiceDescriptor({ id: "joke-service", topic: "joke", configParam: ["style", "lang:required"] });
    expect(descriptor).toEqual({
      id: "joke-service",
      topic: "joke",
      "config-params": [
        { name: "style", required: false },
        { name: "lang", required: true },
      ],
    });
    expect(toolServiceTopics(ToolServiceDescriptor.parse(descriptor), new TopicLayout()).requestTopic).toBe(
      "non-persistent://tg/request/joke",
    );
  });

  it("builds the queue form", () => {
    expect(
      buildToolServiceDescriptor({
        id: "s",
        requestQueue: "non-persistent://tg/request/x",
        responseQueue: "non-persistent://tg/response/x",
      }),
    ).toEqual({
      id: "s",
      "request-queue": "non-persistent://tg/request/x",
      "response-queue": "non-persistent://tg/response/x",
      "config-params": [],
    });
  });

  it("needs exactly one of the two forms, and both queues", () => {
    expect(() => buildToolServiceDescriptor({ id: "s" })).toThrow(/--topic or --request-queue/);
    expect(() => buildToolServiceDescriptor({ id: "s", topic: "t", requestQueue: "q" })).toThrow(/not both/);
    expect(() => buildToolServiceDescriptor({ id: "s", requestQueue: "request:tg:q" })).toThrow(
      /^invalid tool-service descriptor: 'request-queue' needs a matching 'response-queue'/,
    );
  });
});

describe("buildToolDescriptor", () => {
  const base = { name: "tell-joke", description: "Tells a joke", type: "tool-service", service: "joke-service" };

  it("puts --config values at the top level and --argument entries in arguments", () => {
    const descriptor = buildToolDescriptor({ ...base, argument: ["topic:string:the subject"], config: ["style=pun"] });
    expect(descriptor).toEqual({
      type: "tool-service",
      name: "tell-joke",
      description: "Tells a joke",
      service: "joke-service",
      style: "pun",
      arguments: [{ name: "topic", type: "string", description: "the subject" }],
    });
    expect(ToolDescriptor.parse(descriptor)).toMatchObject({ style: "pun" });
  });

  it("builds an mcp-tool tool", () => {
    expect(buildToolDescriptor({ name: "calc", description: "", type: "mcp-tool", mcpTool: "calculator" })).toMatchObject({
      type: "mcp-tool",
      "mcp-tool": "calculator",
    });
  });

  it("asks for the field the type needs and refuses the one it does not", () => {
    expect(() => buildToolDescriptor({ ...base, service: undefined })).toThrow("a tool-service tool needs --service");
    expect(() => buildToolDescriptor({ ...base, type: "mcp-tool", service: undefined })).toThrow("needs --mcp-tool");
    expect(() => buildToolDescriptor({ ...base, type: "text-completion" })).toThrow("--service applies only to --type tool-service");
    expect(() => buildToolDescriptor({ ...base, mcpTool: "x" })).toThrow("--mcp-tool applies only to --type mcp-tool");
  });

  it("refuses --config keys that are the tool's own fields", () => {
    expect(() => buildToolDescriptor({ ...base, config: ["service=other"] })).toThrow(/--config cannot set 'service'/);
  });

  it("validates the name with ToolDescriptor", () => {
    expect(() => buildToolDescriptor({ ...base, name: "tell joke!" })).toThrow(/^invalid tool descriptor: name: tool names are 1-64/);
  });
});

describe("buildMcpDescriptor", () => {
  it("builds url, remote-name, auth-token and headers", () => {
    expect(
      buildMcpDescriptor({ url: "http://127.0.0.1:3901/mcp", remoteName: "add", authToken: "t0k", header: ["X-Api-Key=${env:KEY}"] }),
    ).toEqual({ url: "http://127.0.0.1:3901/mcp", "remote-name": "add", "auth-token": "t0k", headers: { "X-Api-Key": "${env:KEY}" } });
    expect(buildMcpDescriptor({ url: "https://mcp.example/mcp" })).toEqual({ url: "https://mcp.example/mcp" });
  });

  it("refuses a URL that is not http(s)", () => {
    expect(() => buildMcpDescriptor({ url: "ftp://x/mcp" })).toThrow("invalid mcp descriptor: url: url must be an http(s) URL");
  });

  it("builds oauth2 from the --oauth2-* flags, and refuses half of it", () => {
    expect(
      buildMcpDescriptor({
        url: "https://mcp.example/mcp",
        oauth2ClientId: "svc",
        oauth2ClientSecret: "${env:S}",
        oauth2Scope: "mcp:tools",
      }),
    ).toEqual({ url: "https://mcp.example/mcp", oauth2: { "client-id": "svc", "client-secret": "${env:S}", scope: "mcp:tools" } });
    expect(() => buildMcpDescriptor({ url: "https://mcp.example/mcp", oauth2ClientId: "svc" })).toThrow(
      /invalid mcp descriptor: oauth2.client-secret/,
    );
  });
});

describe("checkConfigValue", () => {
  it("validates the types toolmesh knows and passes others through", () => {
    expect(() => checkConfigValue("tool-service", { id: "s" })).toThrow(/invalid tool-service descriptor/);
    expect(() => checkConfigValue("mcp", { url: "http://h/mcp" })).not.toThrow();
    expect(() => checkConfigValue("prompt", "any text")).not.toThrow();
  });
});

describe("readStored", () => {
  it("parses a stored descriptor and names it when it is broken", () => {
    expect(readStored(ToolDescriptor, JSON.stringify({ type: "text-completion", name: "t" }), "tool 't'")).toMatchObject({ name: "t" });
    expect(() => readStored(ToolDescriptor, "{", "tool 't'")).toThrow("tool 't' in config is not valid JSON");
    expect(() => readStored(ToolDescriptor, '{"type": "nope"}', "tool 't'")).toThrow(/^tool 't' in config is invalid: /);
  });
});
