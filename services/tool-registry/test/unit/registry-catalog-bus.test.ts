import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor, requestTopic, responseTopic, testTopics } from "@toolmesh/test-support";
import { type RegistryOnBus, registryOnBus } from "../support/registry-on-bus.js";

// The registry as main.ts builds it, on the in-memory bus with a fake config service: config changes and
// announcements become content-hashed revisions, served on its queue and pushed on notify/tool-registry.
let registry: RegistryOnBus;

beforeAll(async () => {
  registry = await registryOnBus();
});
afterAll(() => registry.close());

const jokeTool = { type: "tool-service", service: "jokes", name: "tell-joke", description: "Tells a joke", arguments: [{ name: "topic" }] };

describe("tool-registry on the in-memory bus", () => {
  it("has no revision before config defines a tool, then makes revision 1 from config and pushes its summary", async () => {
    expect((await registry.ask({ operation: "current" })).error).toEqual({
      type: "not-found",
      message: "the catalog has no revision yet: refresh it first",
    });
    await registry.config.set("tool-service", "jokes", { id: "jokes", topic: "joke" });
    await registry.config.set("tool", "tell-joke", jokeTool);

    const first = await registry.revision(1);
    expect(first.tools).toHaveLength(1);
    expect(first.tools[0]).toMatchObject({
      tool_id: "config.tell-joke",
      name: "tell-joke",
      description: "Tells a joke",
      source: "config",
      parameters_schema: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
      binding: { kind: "tool-service", request_topic: requestTopic("joke"), response_topic: responseTopic("joke"), config: {} },
    });
    const push = await waitFor(() => registry.pushes[0], { timeoutMs: 2_000, intervalMs: 10, description: "revision push" });
    expect(push).toEqual({ revision_number: 1, content_hash: first.content_hash, created_at: first.created_at, tool_count: 1 });
  });

  it("makes revision 2 for a new tool: listed newest first, readable by number and by hash, diffed against 1", async () => {
    await registry.config.set("tool", "chat", { type: "text-completion", name: "chat", description: "Ask the LLM" });
    const second = await registry.revision(2);
    expect(second.tools.map((t) => t.tool_id)).toEqual(["config.chat", "config.tell-joke"]);
    expect(second.content_hash).not.toBe((await registry.ask({ operation: "get-revision", revision_number: 1 })).revision!.content_hash);

    expect((await registry.ask({ operation: "list-revisions" })).revisions.map((r) => [r.revision_number, r.tool_count])).toEqual([
      [2, 2],
      [1, 1],
    ]);
    expect((await registry.ask({ operation: "get-revision", revision_number: 1 })).revision!.tools.map((t) => t.tool_id)).toEqual([
      "config.tell-joke",
    ]);
    expect((await registry.ask({ operation: "get-revision", content_hash: second.content_hash })).revision!.revision_number).toBe(2);
    expect((await registry.ask({ operation: "diff" })).diff).toEqual({
      from_revision: 1,
      to_revision: 2,
      added: ["config.chat"],
      removed: [],
      changed: [],
    });
    await waitFor(() => registry.pushes.length === 2, { timeoutMs: 2_000, intervalMs: 10, description: "second push" });
    expect(registry.pushes.map((p) => p.revision_number)).toEqual([1, 2]);
  });

  it("leaves a TrustGraph-only tool type out with the reason, without a new revision or a degraded source", async () => {
    await registry.config.set("tool", "kq", { type: "knowledge-query", name: "ask-docs", description: "Ask the documents" });
    const configSource = await waitFor(
      async () => (await registry.ask({ operation: "sources" })).sources.find((s) => s.source === "config" && s.left_out.length > 0),
      { timeoutMs: 2_000, intervalMs: 10, description: "left_out on the config source" },
    );
    expect(configSource).toMatchObject({ status: "ok", reason: null, tool_count: 2 });
    expect(configSource.left_out).toEqual([
      "tool 'kq': type 'knowledge-query' is a TrustGraph tool type toolmesh does not execute (only TrustGraph's agents do)",
    ]);

    const refreshed = await registry.ask({ operation: "refresh" });
    expect(refreshed.error).toBeNull();
    expect(refreshed.created).toBe(false);
    expect(refreshed.revision!.revision_number).toBe(2);
  });

  it("reports a tool whose tool-service is missing as a problem of the config source", async () => {
    await registry.config.set("tool", "orphan", { type: "tool-service", service: "nowhere", name: "orphan" });
    const configSource = await waitFor(
      async () => (await registry.ask({ operation: "sources" })).sources.find((s) => s.source === "config" && s.status === "degraded"),
      { timeoutMs: 2_000, intervalMs: 10, description: "config source degraded" },
    );
    expect(configSource.reason).toBe("tool 'orphan': no tool-service 'nowhere' in config");
    await registry.config.delete("tool", "orphan");
  });

  it("adds the tools a service announces on the announcements topic, and skips a malformed announcement", async () => {
    const announcer = registry.bus.client();
    await announcer.sendJson(testTopics().toolAnnouncements, { service_id: "", manifest: "none" });
    await announcer.sendJson(testTopics().toolAnnouncements, {
      service_id: "weather",
      announced_at: new Date().toISOString(),
      manifest: [
        {
          tool_id: "weather.now",
          name: "weather-now",
          description: "Current weather",
          parameters_schema: { type: "object", properties: { city: { type: "string" } } },
          binding: { kind: "tool-service", request_topic: "request:tg:weather", response_topic: "response:tg:weather" },
        },
      ],
    });
    const third = await registry.revision(3);
    expect(third.tools.find((t) => t.tool_id === "weather.now")).toMatchObject({
      source: "announce:weather",
      binding: { request_topic: requestTopic("weather") },
    });
    expect((await registry.ask({ operation: "diff", from_revision: 2, to_revision: 3 })).diff).toMatchObject({
      added: ["weather.now"],
      removed: [],
    });
    expect((await registry.ask({ operation: "sources" })).sources.map((s) => [s.source, s.status])).toEqual(
      expect.arrayContaining([
        ["config", "ok"],
        ["announce:weather", "ok"],
      ]),
    );
  });
});
