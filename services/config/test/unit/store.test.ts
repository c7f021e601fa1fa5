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
