import { type CatalogRevision, type CatalogTool, inToolGroups } from "@toolmesh/schema";

/**
 * The tools one catalog revision offers through MCP, optionally narrowed to one tool group. Text-completion
 * tools are left out: they need the agent's LLM, which this service does not have.
 */
export class ToolView {
  readonly tools: readonly CatalogTool[];
  private readonly byName: Map<string, CatalogTool>;
  /** Equal for two views exactly when they offer the same tools with the same content. */
  readonly fingerprint: string;

  constructor(
    readonly revision: CatalogRevision,
    readonly group: string | null,
  ) {
    this.tools = revision.tools
      .filter((tool) => tool.binding.kind !== "text-completion" && inToolGroups(tool, group === null ? null : [group]))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.byName = new Map(this.tools.map((tool) => [tool.name, tool]));
    this.fingerprint = this.tools.map((tool) => tool.content_hash).join(",");
  }

  tool(name: string): CatalogTool | undefined {
    return this.byName.get(name);
  }

  /** `revision 4` or `revision 4, group 'jokes'`: how errors name what a session sees. */
  get label(): string {
    return `catalog revision ${this.revision.revision_number}${this.group === null ? "" : `, group '${this.group}'`}`;
  }
}

const MAX_VIEWS = 256;

/** Views shared by every session on the same revision and group (building one sorts the whole catalog). */
export class ToolViews {
  private readonly views = new Map<string, ToolView>();

  of(revision: CatalogRevision, group: string | null): ToolView {
    const key = `${revision.revision_number}\u0000${revision.content_hash}\u0000${group ?? ""}`;
    let view = this.views.get(key);
    if (!view) {
      view = new ToolView(revision, group);
      if (this.views.size >= MAX_VIEWS) this.views.delete(this.views.keys().next().value as string);
      this.views.set(key, view);
    }
    return view;
  }
}
