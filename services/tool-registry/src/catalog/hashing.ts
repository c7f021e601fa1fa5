import { createHash } from "node:crypto";
import canonicalizeModule from "canonicalize";
import type { CatalogTool, ManifestEntry } from "@toolmesh/schema";

// The package is CommonJS (`module.exports = fn`) with an ESM-style .d.ts: Node hands us the function
// as the default import, whatever the types say.
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

/** RFC 8785 (JSON Canonicalization Scheme): key order and number formatting no longer matter. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new Error("value cannot be canonicalised as JSON");
  return text;
}

export function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * A tool's hash covers what a model and a caller see: id, name, description, schemas, binding, groups and
 * annotations. Absent optional fields are left out (canonical JSON drops undefined), so tools without them
 * keep the hash they had before those fields existed.
 */
export function toolHash(entry: ManifestEntry): string {
  const { tool_id, name, description, parameters_schema, binding, group, output_schema, annotations } = entry;
  return sha256(canonicalJson({ tool_id, name, description, parameters_schema, binding, group, output_schema, annotations }));
}

/** The catalog's hash: over (tool_id, tool hash) pairs sorted by tool_id. */
export function catalogHash(tools: readonly Pick<CatalogTool, "tool_id" | "content_hash">[]): string {
  const pairs = tools.map((t) => [t.tool_id, t.content_hash]).sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0));
  return sha256(canonicalJson(pairs));
}
