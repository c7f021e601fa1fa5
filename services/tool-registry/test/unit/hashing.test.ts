import { describe, expect, it } from "vitest";
import type { ManifestEntry } from "@toolmesh/schema";
import { canonicalJson, catalogHash, sha256, toolHash } from "../../src/catalog/hashing.js";

const entry = (over: Partial<ManifestEntry> = {}): ManifestEntry => ({
  tool_id: "jokes.tell-pun",
  name: "tell-pun",
  description: "Tells a pun",
  parameters_schema: { type: "object", properties: { topic: { type: "string", description: "about" } }, required: ["topic"] },
  binding: {
    kind: "tool-service",
    request_topic: "non-persistent://tg/request/joke",
    response_topic: "non-persistent://tg/response/joke",
    config: { style: "pun" },
  },
  ...over,
});

describe("canonical hashing (RFC 8785 + SHA-256)", () => {
  it("canonicalises key order and number forms", () => {
    expect(canonicalJson({ b: 1.0, a: [true, null, "x"], c: { z: 1e2, y: 0.5 } })).toBe(
      '{"a":[true,null,"x"],"b":1,"c":{"y":0.5,"z":100}}',
    );
  });

  it("gives the same tool hash whatever the key order inside parameters_schema", () => {
    const permuted = entry({
      parameters_schema: { required: ["topic"], properties: { topic: { description: "about", type: "string" } }, type: "object" },
    });
    expect(toolHash(permuted)).toBe(toolHash(entry()));
    expect(toolHash(entry())).toMatch(/^[0-9a-f]{64}$/);
  });

  it("changes the tool hash when anything a caller sees changes", () => {
    const base = toolHash(entry());
    expect(toolHash(entry({ description: "Tells a better pun" }))).not.toBe(base);
    expect(toolHash(entry({ binding: { kind: "text-completion" } }))).not.toBe(base);
    expect(toolHash(entry({ group: ["jokes"] }))).not.toBe(base);
    expect(toolHash(entry({ output_schema: { type: "object" } }))).not.toBe(base);
    expect(toolHash(entry({ annotations: { readOnlyHint: true } }))).not.toBe(base);
  });

  it("keeps the hash a tool had before group, output_schema and annotations existed", () => {
    // The value from before those optional fields were added to the hash: revisions stay stable.
    const { tool_id, name, description, parameters_schema, binding } = entry();
    expect(toolHash(entry())).toBe(sha256(canonicalJson({ tool_id, name, description, parameters_schema, binding })));
  });

  it("hashes the set independent of order, and differently when a tool changes", () => {
    const a = { tool_id: "a", content_hash: "1" };
    const b = { tool_id: "b", content_hash: "2" };
    expect(catalogHash([a, b])).toBe(catalogHash([b, a]));
    expect(catalogHash([a, { ...b, content_hash: "3" }])).not.toBe(catalogHash([a, b]));
    expect(catalogHash([a])).not.toBe(catalogHash([a, b]));
  });
});
