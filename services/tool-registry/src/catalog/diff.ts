import type { CatalogDiff, CatalogRevision } from "@toolmesh/schema";

/** Tools added, removed and changed (same tool_id, different hash) from one revision to another. */
export function diffRevisions(from: CatalogRevision, to: CatalogRevision): CatalogDiff {
  const before = new Map(from.tools.map((t) => [t.tool_id, t.content_hash]));
  const after = new Map(to.tools.map((t) => [t.tool_id, t.content_hash]));
  const added = [...after.keys()].filter((id) => !before.has(id)).sort();
  const removed = [...before.keys()].filter((id) => !after.has(id)).sort();
  const changed = [...after.entries()]
    .filter(([id, hash]) => before.has(id) && before.get(id) !== hash)
    .map(([id]) => id)
    .sort();
  return { from_revision: from.revision_number, to_revision: to.revision_number, added, removed, changed };
}
