import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConfigOnBus, configOnBus, item } from "../support/config-on-bus.js";

// TrustGraph's config protocol (issue 14; TrustGraph 2.11.1 config/service): missing keys, the *-all-ws
// reads, the system queue's workspace rule, per-workspace queues and workspace lifecycle, and pushes that
// name the types and workspaces changed. On the in-memory bus; the real broker and TrustGraph's own
// clients run the same in test/integration.
let config: ConfigOnBus;

beforeAll(async () => {
  config = await configOnBus();
});
afterAll(() => config.close());

const tool = (name: string) => ({ type: "text-completion", name, description: `says ${name}` });

describe("TrustGraph's config protocol on the in-memory bus", () => {
  it("registers default at start and announces it with the start-up push", async () => {
    expect((await config.ask({ operation: "list", workspace: "__workspaces__", type: "workspace" })).directory).toEqual(["default"]);
    expect(config.pushes[0]).toEqual({ version: 1, changes: {}, workspace_changes: { created: ["default"], deleted: [] } });
    expect(config.workspaceQueues.workspaces).toEqual(["default"]);
  });

  it("answers a missing key with value null and deletes a missing key silently, with a version bump and a push", async () => {
    await config.ask({ operation: "put", values: [item("tool", "here", tool("here"))] });
    const got = await config.ask({
      operation: "get",
      keys: [
        { type: "tool", key: "here" },
        { type: "agent", key: "tool-index" },
      ],
    });
    expect(got.error).toBeNull();
    expect(got.values).toEqual([
      { type: "tool", key: "here", value: JSON.stringify(tool("here")) },
      { type: "agent", key: "tool-index", value: null },
    ]);
    const before = got.version!;
    const deleted = await config.ask({ operation: "delete", keys: [{ type: "tool", key: "never-there" }] });
    expect(deleted).toMatchObject({ error: null, version: before + 1 });
    expect(await config.pushFor(before + 1)).toEqual({ version: before + 1, changes: { tool: ["default"] }, workspace_changes: null });
  });

  it("takes a write of nothing as TrustGraph's config service does, but makes no version and no push for it", async () => {
    const before = (await config.ask({ operation: "config" })).version!;
    const pushes = config.pushes.length;
    // TrustGraph's flow-svc starting a flow whose blueprint names no processors: put_many of no values.
    expect(await config.ask({ operation: "put", values: [] })).toMatchObject({ error: null, version: before });
    expect(await config.ask({ operation: "delete", keys: [] })).toMatchObject({ error: null, version: before });
    expect(await config.ask({ operation: "get", keys: [] })).toMatchObject({ error: null, version: before, values: [] });
    expect((await config.ask({ operation: "config" })).version).toBe(before);
    await config.ask({ operation: "delete", keys: [{ type: "tool", key: "never-there" }] });
    await config.pushFor(before + 1);
    // The next push is the next write's: none came between.
    expect(config.pushes.slice(pushes).map((p) => p.version)).toEqual([before + 1]);
  });

  it("refuses an empty workspace on the system queue, except for the *-all-ws reads", async () => {
    for (const operation of ["get", "list", "getvalues", "put", "delete", "config"] as const) {
      const reply = await config.ask({
        operation,
        workspace: "",
        type: "tool",
        keys: [{ type: "tool", key: "k" }],
        values: [item("tool", "k", tool("k"))],
      });
      expect(reply.error, operation).toEqual({ type: "bad-request", message: "Workspace is required" });
    }
    expect((await config.ask({ operation: "getkeys-all-ws", workspace: "", type: "tool" })).error).toBeNull();
  });

  it("lists a type across every workspace with getkeys-all-ws (no values) and getvalues-all-ws", async () => {
    await config.ask({ operation: "put", workspace: "all-a", values: [item("tool", "a1", tool("a1"))] });
    await config.ask({ operation: "put", workspace: "__template__", values: [item("tool", "t1", tool("t1"))] });
    const keys = await config.ask({ operation: "getkeys-all-ws", type: "tool" });
    expect(keys.values).toEqual(
      expect.arrayContaining([
        { workspace: "all-a", type: "tool", key: "a1", value: "" },
        { workspace: "__template__", type: "tool", key: "t1", value: "" },
        { workspace: "default", type: "tool", key: "here", value: "" },
      ]),
    );
    const values = await config.ask({ operation: "getvalues-all-ws", type: "tool" });
    expect(values.values.find((v) => v.workspace === "all-a")).toEqual({
      workspace: "all-a",
      type: "tool",
      key: "a1",
      value: JSON.stringify(tool("a1")),
    });
    expect(values.version).toBe(keys.version);
    expect((await config.ask({ operation: "getkeys-all-ws" })).error).toEqual({
      type: "bad-request",
      message: "'getkeys-all-ws' needs a 'type'",
    });
  });

  it("registers a workspace on its first put: its queue serves it, the push names it, and it gets the template", async () => {
    const reply = await config.ask({ operation: "put", workspace: "team-x", values: [item("tool", "x1", tool("x1"))] });
    expect(reply.error).toBeNull();
    expect(await config.pushFor(reply.version!)).toEqual({
      version: reply.version,
      changes: { tool: ["team-x"] },
      workspace_changes: { created: ["team-x"], deleted: [] },
    });
    // The queue is served before the reply: usable at once. The workspace comes from the queue, not the body.
    const listed = await config.ask({ operation: "list", workspace: "default", type: "tool" }, "config:team-x");
    expect(listed.directory).toEqual(["t1", "x1"]);
    expect(
      (await config.ask({ operation: "put", workspace: "", values: [item("tool", "x2", tool("x2"))] }, "config:team-x")).error,
    ).toBeNull();
    expect((await config.ask({ operation: "list", workspace: "team-x", type: "tool" })).directory).toEqual(["t1", "x1", "x2"]);
    expect((await config.ask({ operation: "list", type: "tool" })).directory).toEqual(["here"]);
    expect((await config.ask({ operation: "getkeys-all-ws", type: "tool" }, "config:team-x")).error).toEqual({
      type: "bad-operation",
      message: "Bad operation 'getkeys-all-ws' on workspace 'team-x''s config queue",
    });
  });

  it("follows TrustGraph's registrations in __workspaces__: a queue appears and goes, and the pushes say so", async () => {
    const created = await config.ask({
      operation: "put",
      workspace: "__workspaces__",
      values: [{ type: "workspace", key: "ws-b", value: '{"enabled": true}' }],
    });
    expect(await config.pushFor(created.version!)).toEqual({
      version: created.version,
      changes: { tool: ["ws-b"] },
      workspace_changes: { created: ["ws-b"], deleted: [] },
    });
    expect((await config.ask({ operation: "list", type: "tool" }, "config:ws-b")).directory).toEqual(["t1"]);
    const deleted = await config.ask({ operation: "delete", workspace: "__workspaces__", keys: [{ type: "workspace", key: "ws-b" }] });
    expect(await config.pushFor(deleted.version!)).toEqual({
      version: deleted.version,
      changes: {},
      workspace_changes: { created: [], deleted: ["ws-b"] },
    });
    expect(config.workspaceQueues.workspaces).not.toContain("ws-b");
    await expect(config.ask({ operation: "list", type: "tool" }, "config:ws-b", 300)).rejects.toThrow(/no reply/);
  });

  it("refuses a workspace that cannot have a queue, and keeps reserved workspaces out of pushes", async () => {
    const bad = await config.ask({ operation: "put", workspace: "a/b", values: [item("tool", "k", tool("k"))] });
    expect(bad.error).toEqual({
      type: "bad-request",
      message: expect.stringMatching(/^put refused: workspace 'a\/b' cannot have its own queue/),
    });
    const reserved = await config.ask({
      operation: "put",
      workspace: "__workspaces__",
      values: [{ type: "workspace", key: "_hidden", value: "{}" }],
    });
    expect(reserved.error?.message).toMatch(/workspace '_hidden' is reserved/);
    const template = await config.ask({ operation: "put", workspace: "__template__", values: [item("tool", "t2", tool("t2"))] });
    expect(await config.pushFor(template.version!)).toEqual({ version: template.version, changes: {}, workspace_changes: null });
  });

  it("stores tools of TrustGraph-only types as given, and still refuses a tool of no known type", async () => {
    const kq = { type: "knowledge-query", name: "ask-docs", description: "Ask the documents", collection: "docs" };
    const rows = { type: "row-embeddings-query", name: "find-rows", "schema-name": "customers", limit: 5 };
    const stored = await config.ask({
      operation: "put",
      values: [item("tool", "kq", kq), item("tool", "rows", rows), { type: "prompt", key: "x", value: "not json" }],
    });
    expect(stored.error).toBeNull();
    expect((await config.ask({ operation: "get", keys: [{ type: "tool", key: "kq" }] })).values[0]?.value).toBe(JSON.stringify(kq));
    const typo = await config.ask({ operation: "put", values: [item("tool", "typo", { type: "tool-servce", name: "t" })] });
    expect(typo.error).toEqual({
      type: "config-error",
      message: expect.stringMatching(/^tool 'typo' is not a valid descriptor: type: 'type' must be one of tool-service, mcp-tool/),
    });
  });
});
