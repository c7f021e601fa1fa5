import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigStore, TypeOverLimit } from "../../src/store.js";

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "config-store-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("ConfigStore", () => {
  it("puts, reads, lists and deletes per workspace, bumping one version per change", () => {
    const store = ConfigStore.open(freshDir());
    expect(store.version).toBe(0);
    expect(store.put("default", [{ type: "tool", key: "b", value: "{}" }, { type: "tool", key: "a", value: '{"x":1}' }])).toBe(1);
    expect(store.put("team", [{ type: "tool", key: "a", value: "team" }])).toBe(2);
    expect(store.keys("default", "tool")).toEqual(["a", "b"]);
    expect(store.get("default", [{ type: "tool", key: "a" }, { type: "tool", key: "zz" }])).toEqual([
      { type: "tool", key: "a", value: '{"x":1}' },
      { type: "tool", key: "zz", value: null },
    ]);
    expect(store.all("team")).toEqual({ tool: { a: "team" } });
    expect(store.delete("default", [{ type: "tool", key: "a" }, { type: "tool", key: "never-there" }])).toBe(3);
    expect(store.keys("default", "tool")).toEqual(["b"]);
    expect(store.keysAllWorkspaces("tool")).toEqual([
      { workspace: "default", type: "tool", key: "b" },
      { workspace: "team", type: "tool", key: "a" },
    ]);
    expect(store.valuesAllWorkspaces("tool").map((v) => `${v.workspace}/${v.key}=${v.value}`)).toEqual(["default/b={}", "team/a=team"]);
    store.close();
  });

  it("registers workspaces, fills a new one from the template, and reports registrations that come and go", () => {
    const store = ConfigStore.open(freshDir());
    store.put("__template__", [{ type: "prompt", key: "system", value: "be brief" }, { type: "tool", key: "t", value: "{}" }]);
    store.put("acme", [{ type: "tool", key: "t", value: "acme's own" }]);
    const put = store.write("acme", { put: [{ type: "mcp", key: "m", value: "{}" }], register: ["acme"] });
    expect(put).toEqual({ version: 3, created: ["acme"], deleted: [], provisioned: { acme: ["prompt"] } });
    expect(store.all("acme")).toEqual({ mcp: { m: "{}" }, prompt: { system: "be brief" }, tool: { t: "acme's own" } });
    // Registering again changes nothing; explicit registration through __workspaces__ works the same way.
    expect(store.write("acme", { register: ["acme"] }).created).toEqual([]);
    expect(store.write("__workspaces__", { put: [{ type: "workspace", key: "beta", value: '{"enabled": true}' }] }).created).toEqual(["beta"]);
    expect(store.workspaces()).toEqual(["acme", "beta"]);
    expect(store.write("__workspaces__", { delete: [{ type: "workspace", key: "beta" }] })).toMatchObject({ created: [], deleted: ["beta"] });
    store.close();
  });

  it("registers default at start, and once the workspaces a store from before registration holds", () => {
    const dir = freshDir();
    const old = ConfigStore.open(dir);
    old.put("team-a", [{ type: "tool", key: "t", value: "{}" }]);
    old.put("__template__", [{ type: "tool", key: "t", value: "{}" }]);
    old.put("bad/name", [{ type: "tool", key: "t", value: "{}" }]);
    expect(old.registerAtStart((ws) => !ws.includes("/"))?.created).toEqual(["default", "team-a"]);
    old.write("__workspaces__", { delete: [{ type: "workspace", key: "team-a" }] });
    old.close();
    const reopened = ConfigStore.open(dir);
    expect(reopened.registerAtStart(() => true)).toBeNull();
    expect(reopened.workspaces()).toEqual(["default"]);
    reopened.close();
  });

  it("keeps items and the version across reopening the same folder", () => {
    const dir = freshDir();
    const first = ConfigStore.open(dir);
    first.put("default", [{ type: "mcp", key: "calc", value: '{"url":"http://h/mcp"}' }]);
    first.put("default", [{ type: "mcp", key: "calc", value: '{"url":"http://h2/mcp"}' }]);
    first.close();
    const second = ConfigStore.open(dir);
    expect(second.version).toBe(2);
    expect(second.values("default", "mcp")).toEqual([{ type: "mcp", key: "calc", value: '{"url":"http://h2/mcp"}' }]);
    second.close();
  });

  it("measures a type's getvalues reply as the JSON the wire carries, escapes included", () => {
    const store = ConfigStore.open(freshDir());
    const values = [
      { type: "tool", key: "quoted", value: JSON.stringify({ say: 'he said "hi"\n', path: "C:\\x" }) },
      { type: "tool", key: "unicode-\u00e9", value: "caf\u00e9 \u{1F600} \u0001" },
    ];
    store.put("default", values);
    const wire = Buffer.byteLength(JSON.stringify({ version: store.version, values: store.values("default", "tool") }));
    const estimate = store.getvaluesReplyBytes("default", "tool");
    expect(estimate).toBeGreaterThanOrEqual(wire);
    expect(estimate - wire).toBeLessThanOrEqual(64);
    expect(store.getvaluesReplyBytes("default", "nothing")).toBeLessThanOrEqual(64);
    store.close();
  });

  it("refuses a put that would make a type's reply exceed the bound, storing none of it, but lets a type shrink", () => {
    const store = ConfigStore.open(freshDir());
    const big = (key: string, size: number) => ({ type: "blob", key, value: "x".repeat(size) });
    store.put("default", [big("a", 600)], 1_000);
    expect(() => store.put("default", [big("b", 600), { type: "tool", key: "t", value: "{}" }], 1_000)).toThrow(TypeOverLimit);
    expect(store.version).toBe(1);
    expect(store.keys("default", "blob")).toEqual(["a"]);
    expect(store.keys("default", "tool")).toEqual([]);
    // Another workspace has its own bound.
    expect(store.put("team", [big("b", 600)], 1_000)).toBe(2);
    // Stored before a bound existed: over it, yet a put that makes the type smaller is accepted.
    store.put("default", [big("b", 900)]);
    expect(() => store.put("default", [big("c", 10)], 1_000)).toThrow(/type 'blob' would need a \d+-byte reply, over the limit of 1000/);
    expect(store.put("default", [big("b", 100)], 1_000)).toBe(4);
    store.close();
  });
});
