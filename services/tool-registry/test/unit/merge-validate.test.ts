import { describe, expect, it } from "vitest";
import type { CatalogRevision, ManifestEntry } from "@toolmesh/schema";
import { diffRevisions } from "../../src/catalog/diff.js";
import { mergeSources } from "../../src/catalog/merge.js";
import { validateManifest } from "../../src/catalog/validate.js";

const tool = (tool_id: string, name: string, description = ""): ManifestEntry => ({
  tool_id,
  name,
  description,
  parameters_schema: { type: "object" },
  binding: { kind: "text-completion" },
});

describe("mergeSources", () => {
  it("keeps one copy of an identical tool reached twice", () => {
    const { tools, refusals } = mergeSources([
      { source: "source:a", entries: [tool("x", "x-tool")] },
      { source: "announce:s", entries: [tool("x", "x-tool")] },
    ]);
    expect(tools.map((t) => [t.tool_id, t.source])).toEqual([["x", "source:a"]]);
    expect(refusals.size).toBe(0);
  });

  it("refuses a taken name or tool_id with different content, never renaming", () => {
    const { tools, refusals } = mergeSources([
      { source: "config", entries: [tool("config.a", "lookup")] },
      { source: "source:b", entries: [tool("b.lookup", "lookup"), tool("config.a", "other", "changed"), tool("b.ok", "ok")] },
    ]);
    expect(tools.map((t) => t.name).sort()).toEqual(["lookup", "ok"]);
    expect(refusals.get("source:b")).toEqual([
      "tool name 'lookup' (b.lookup) is already taken by config.a from config",
      "tool_id 'config.a' is already provided by config with different content",
    ]);
  });

  it("lets a tool already in the catalog keep its name when a new source offers the same name", () => {
    const sources = [
      { source: "source:a-newcomer", entries: [tool("new.lookup", "lookup", "impostor")] },
      { source: "source:b-existing", entries: [tool("old.lookup", "lookup")] },
    ];
    expect(mergeSources(sources).tools.map((t) => t.tool_id)).toEqual(["new.lookup"]);
    const { tools, refusals } = mergeSources(sources, new Set(["old.lookup"]));
    expect(tools.map((t) => t.tool_id)).toEqual(["old.lookup"]);
    expect(refusals.get("source:a-newcomer")).toEqual([
      "tool name 'lookup' (new.lookup) is already taken by old.lookup from source:b-existing",
    ]);
  });
});

describe("validateManifest", () => {
  it("keeps good entries and reports each bad one with its reason", () => {
    const { entries, problems } = validateManifest([
      tool("good", "good-tool"),
      { ...tool("bad-name", "bad name!") },
      { ...tool("bad-schema", "bad-schema"), parameters_schema: { type: "strnig" } },
      { ...tool("array-schema", "array-schema"), parameters_schema: { type: "array" } },
      { tool_id: "no-binding", name: "no-binding", parameters_schema: {} },
    ]);
    expect(entries.map((e) => e.tool_id)).toEqual(["good"]);
    expect(problems.map((p) => p.tool)).toEqual(["bad name!", "bad-schema", "array-schema", "no-binding"]);
    expect(problems[0]!.reason).toMatch(/name: tool names are 1-64 characters/);
    expect(problems[1]!.reason).toMatch(/parameters_schema is not a valid JSON Schema/);
    expect(problems[2]!.reason).toBe("parameters_schema must describe an object, not 'array'");
    expect(problems[3]!.reason).toMatch(/binding/);
  });

  it("knows the standard string formats", () => {
    const withFormat = {
      ...tool("fmt", "fmt"),
      parameters_schema: {
        type: "object",
        properties: { when: { type: "string", format: "date-time" }, link: { type: "string", format: "uri" } },
      },
    };
    expect(validateManifest([withFormat]).problems).toEqual([]);
  });

  it("refuses a schema whose pattern cannot run in linear time; one that can is kept", () => {
    const withPattern = (id: string, pattern: string): ManifestEntry => ({
      ...tool(id, id),
      parameters_schema: { type: "object", properties: { code: { type: "string", pattern } } },
    });
    const { entries, problems } = validateManifest([withPattern("lookahead", "^(?=.*\\d)\\w+$"), withPattern("plain", "^(a+)+$")]);
    expect(entries.map((e) => e.tool_id)).toEqual(["plain"]);
    expect(problems).toEqual([
      {
        index: 0,
        tool: "lookahead",
        reason: expect.stringMatching(/^parameters_schema does not compile: .*unsupported Perl syntax: `\(\?=`/),
      },
    ]);
  });

  it("refuses a body that is not an array", () => {
    expect(() => validateManifest({ tools: [] })).toThrow("manifest must be a JSON array of tool entries");
  });
});

describe("diffRevisions", () => {
  const revision = (n: number, tools: Array<[string, string]>): CatalogRevision => ({
    revision_number: n,
    content_hash: `h${n}`,
    created_at: "",
    tool_count: tools.length,
    tools: tools.map(([id, hash]) => ({ ...tool(id, id), source: "s", content_hash: hash })),
  });

  it("names added, removed and changed tools", () => {
    expect(
      diffRevisions(
        revision(1, [
          ["a", "1"],
          ["b", "1"],
          ["c", "1"],
        ]),
        revision(2, [
          ["a", "1"],
          ["b", "2"],
          ["d", "1"],
        ]),
      ),
    ).toEqual({
      from_revision: 1,
      to_revision: 2,
      added: ["d"],
      removed: ["c"],
      changed: ["b"],
    });
  });
});
