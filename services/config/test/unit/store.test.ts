import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigStore } from "../../src/store.js";

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
    expect(store.get("default", [{ type: "tool", key: "a" }, { type: "tool", key: "zz" }])).toEqual({
      values: [{ type: "tool", key: "a", value: '{"x":1}' }],
      missing: [{ type: "tool", key: "zz" }],
    });
    expect(store.all("team")).toEqual({ tool: { a: "team" } });
    expect(store.delete("default", [{ type: "tool", key: "a" }])).toBe(3);
    expect(store.keys("default", "tool")).toEqual(["b"]);
    store.close();
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
});
