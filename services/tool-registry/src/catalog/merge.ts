import type { CatalogTool, ManifestEntry } from "@toolmesh/schema";
import { toolHash } from "./hashing.js";

export interface SourceTools {
  /** `config`, `source:<id>` or `announce:<service id>`. */
  source: string;
  entries: ManifestEntry[];
}

export interface MergeResult {
  tools: CatalogTool[];
  /** Per source: why some of its tools were refused. */
  refusals: Map<string, string[]>;
}

/**
 * One catalog from many sources. Tools already in the current catalog (`incumbents`, by tool_id) are placed
 * first, so a newly added source can never take over a name in use; then the order given (config, sources,
 * announcements). The same tool reached twice with identical content is kept once; a name or tool_id
 * already taken by different content is refused and reported — never renamed, never silently replaced.
 */
export function mergeSources(sources: readonly SourceTools[], incumbents: ReadonlySet<string> = new Set()): MergeResult {
  const byId = new Map<string, CatalogTool>();
  const byName = new Map<string, CatalogTool>();
  const refusals = new Map<string, string[]>();
  const refuse = (source: string, reason: string) => (refusals.get(source) ?? refusals.set(source, []).get(source)!).push(reason);

  const ordered = sources.flatMap(({ source, entries }) => entries.map((entry) => ({ source, entry })));
  const rank = (toolId: string) => (incumbents.has(toolId) ? 0 : 1);
  ordered.sort((a, b) => rank(a.entry.tool_id) - rank(b.entry.tool_id)); // stable: keeps source order within a rank

  for (const { source, entry } of ordered) {
    {
      const content_hash = toolHash(entry);
      const sameId = byId.get(entry.tool_id);
      if (sameId) {
        if (sameId.content_hash !== content_hash) {
          refuse(source, `tool_id '${entry.tool_id}' is already provided by ${sameId.source} with different content`);
        }
        continue;
      }
      const sameName = byName.get(entry.name);
      if (sameName) {
        refuse(source, `tool name '${entry.name}' (${entry.tool_id}) is already taken by ${sameName.tool_id} from ${sameName.source}`);
        continue;
      }
      const tool: CatalogTool = { ...entry, source, content_hash };
      byId.set(entry.tool_id, tool);
      byName.set(entry.name, tool);
    }
  }
  const tools = [...byId.values()].sort((a, b) => (a.tool_id < b.tool_id ? -1 : a.tool_id > b.tool_id ? 1 : 0));
  return { tools, refusals };
}
