import { describe, expect, it } from "vitest";
import type { CatalogRevision, CatalogTool } from "@toolmesh/schema";
import { classifyText } from "../../src/binding-invoker.js";
import { SessionCatalog } from "../../src/session-catalog.js";
import { decodeCursor, encodeCursor, toMcpTool } from "../../src/tool-listing.js";
import { ToolViews } from "../../src/tool-view.js";

const tool = (name: string, extra: Partial<CatalogTool> = {}): CatalogTool => ({
  tool_id: `t.${name}`,
  name,
  description: `${name} tool`,
  parameters_schema: { properties: { a: { type: "string" } } },
  binding: {
    kind: "tool-service",
    request_topic: "non-persistent://tg/request/x",
    response_topic: "non-persistent://tg/response/x",
    config: {},
  },
  source: "config",
  content_hash: `hash-${name}-${JSON.stringify(extra)}`,
  ...extra,
});
const revision = (n: number, tools: CatalogTool[]): CatalogRevision => ({
  revision_number: n,
  content_hash: `rev${n}`,
  created_at: "",
  tool_count: tools.length,
  tools,
});

describe("tool views, session pinning and listing", () => {
  it("sorts by name, leaves out text-completion tools, and filters by group ('default' for tools without one)", () => {
    const r = revision(1, [tool("b", { group: ["jokes"] }), tool("a"), tool("c", { binding: { kind: "text-completion" } })]);
    const views = new ToolViews();
    expect(views.of(r, null).tools.map((t) => t.name)).toEqual(["a", "b"]);
    expect(views.of(r, "jokes").tools.map((t) => t.name)).toEqual(["b"]);
    expect(views.of(r, "default").tools.map((t) => t.name)).toEqual(["a"]);
    expect(views.of(r, "jokes").label).toBe("catalog revision 1, group 'jokes'");
  });

  it("moves a latest-following session, reporting a change only when its tools changed; a pinned one stays", () => {
    const views = new ToolViews();
    const r1 = revision(1, [tool("a"), tool("b", { group: ["g"] })]);
    const r2 = revision(2, [tool("a"), tool("b", { group: ["g"] }), tool("c")]);
    const latestInGroup = new SessionCatalog(views, "latest", "g", r1);
    const latest = new SessionCatalog(views, "latest", null, r1);
    const pinned = new SessionCatalog(views, "pinned", null, r1);
    expect(latestInGroup.follow(r2)).toBe(false);
    expect(latestInGroup.revisionNumber).toBe(2);
    expect(latest.follow(r2)).toBe(true);
    expect(latest.follow(r1)).toBe(false);
    expect(pinned.follow(r2)).toBe(false);
    expect(pinned.revisionNumber).toBe(1);
  });

  it("lists a tool with an object input schema, its output schema, annotations and toolmesh _meta", () => {
    const listed = toMcpTool(
      tool("w", { output_schema: { type: "object" }, annotations: { title: "W", readOnlyHint: true }, group: ["g"] }),
    );
    expect(listed).toMatchObject({
      name: "w",
      title: "W",
      inputSchema: { type: "object" },
      outputSchema: { type: "object" },
      annotations: { readOnlyHint: true },
    });
    expect(listed._meta).toMatchObject({ "io.toolmesh/tool_id": "t.w", "io.toolmesh/group": ["g"] });
    expect(toMcpTool(tool("x", { output_schema: { type: "string" } })).outputSchema).toBeUndefined();
  });

  it("round-trips cursors and refuses anything else", () => {
    expect(decodeCursor(encodeCursor({ revision: 7, offset: 1000 }))).toEqual({ revision: 7, offset: 1000 });
    for (const bad of [
      "",
      "x",
      Buffer.from("[0,1]").toString("base64url"),
      Buffer.from('{"a":1}').toString("base64url"),
      Buffer.from("[1,-1]").toString("base64url"),
    ]) {
      expect(decodeCursor(bad)).toBeUndefined();
    }
  });

  it("treats text that is a JSON object as JSON, anything else as text", () => {
    expect(classifyText('{"a": 1}')).toEqual({ kind: "json", value: { a: 1 } });
    expect(classifyText("[1, 2]")).toEqual({ kind: "text", text: "[1, 2]" });
    expect(classifyText("{not json")).toEqual({ kind: "text", text: "{not json" });
    expect(classifyText("plain")).toEqual({ kind: "text", text: "plain" });
  });
});
