import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { toolServiceTopics, ToolServiceDescriptor, TopicLayout } from "@toolmesh/schema";
import { SqliteConfigStore } from "../../src/store/index.js";
import { addTrustGraphQueuesAtStart, withTrustGraphQueues } from "../../src/tool-service-queues.js";

// TrustGraph's agent-manager-react refuses a tool-service without request-queue/response-queue, and then
// loads no tool of the workspace at all; toolmesh's short form names only a topic. Config stores such a
// value with the queues its topic means, so both read it and both reach the same topics.

const dirs: string[] = [];
afterAll(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

const item = (type: string, key: string, value: unknown) => ({ type, key, value: JSON.stringify(value) });
const short = { id: "jokes", topic: "joke", "config-params": [{ name: "style", required: false }] };

describe("withTrustGraphQueues", () => {
  it("adds the queues a topic means in the tenant, and toolmesh reads the same topics from either form", () => {
    for (const tenant of ["tg", "acme"]) {
      const stored = withTrustGraphQueues(item("tool-service", "jokes", short), tenant);
      const value = JSON.parse(stored.value) as Record<string, unknown>;
      expect(value).toEqual({ ...short, "request-queue": `request:${tenant}:joke`, "response-queue": `response:${tenant}:joke` });
      const layout = new TopicLayout({ tenant });
      expect(toolServiceTopics(ToolServiceDescriptor.parse(value), layout)).toEqual(
        toolServiceTopics(ToolServiceDescriptor.parse(short), layout),
      );
    }
  });

  it("leaves alone what already has queues, other types, and values it cannot read", () => {
    const given = [
      item("tool-service", "tg", { id: "tg", "request-queue": "request:tg:x", "response-queue": "response:tg:x" }),
      item("tool-service", "both", { id: "both", topic: "y", "request-queue": "request:tg:x", "response-queue": "response:tg:x" }),
      item("tool", "t", { type: "tool-service", name: "t", service: "jokes", topic: "joke" }),
      item("note", "n", { topic: "joke" }),
      item("tool-service", "broken", { id: "broken" }),
      { type: "tool-service", key: "text", value: "not json" },
    ];
    for (const value of given) expect(withTrustGraphQueues(value, "tg")).toBe(value);
  });
});

describe("addTrustGraphQueuesAtStart", () => {
  it("completes the stored short forms once, one write per workspace that has any", async () => {
    const dir = mkdtempSync(join(tmpdir(), "config-queues-"));
    dirs.push(dir);
    const store = await SqliteConfigStore.open(dir);
    try {
      await store.write("default", { put: [item("tool-service", "jokes", short), item("tool", "t", { type: "tool-service" })] });
      await store.write("other", {
        put: [item("tool-service", "tg", { id: "tg", "request-queue": "request:tg:x", "response-queue": "response:tg:x" })],
      });
      await store.write("third", { put: [item("tool-service", "b", { id: "b", topic: "b" })] });
      const before = await store.version();

      const added = await addTrustGraphQueuesAtStart(store, "tg");
      expect(added.workspaces.sort()).toEqual(["default", "third"]);
      expect(await store.version()).toBe(before + 2);
      // One push naming the workspaces, at the last write's version, with `tool` beside `tool-service`:
      // TrustGraph's processors re-read only the types a push names, and its agent needs both together.
      expect(added.push).toEqual({
        version: before + 2,
        changes: { tool: ["default", "third"], "tool-service": ["default", "third"] },
        workspace_changes: null,
      });
      const stored = await store.valuesAllWorkspaces("tool-service");
      expect(stored.map((v) => [v.workspace, v.key, JSON.parse(v.value)["request-queue"]])).toEqual([
        ["default", "jokes", "request:tg:joke"],
        ["other", "tg", "request:tg:x"],
        ["third", "b", "request:tg:b"],
      ]);
      // Nothing left to do: a second start (or a second replica after this one) writes and tells nothing.
      expect(await addTrustGraphQueuesAtStart(store, "tg")).toEqual({ workspaces: [], push: null });
      expect(await store.version()).toBe(before + 2);
    } finally {
      await store.close();
    }
  });
});
