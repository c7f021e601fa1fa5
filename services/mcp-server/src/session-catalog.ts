import type { CatalogRevision } from "@toolmesh/schema";
import type { ToolView, ToolViews } from "./tool-view.js";

/** `pinned`: the revision chosen at initialize, for the session's life. `latest`: follows new revisions. */
export type PinMode = "pinned" | "latest";

/**
 * What one MCP session sees of the catalog. A pinned session's view never changes; a latest-following
 * session moves to each new revision, and reports whether its tool list changed by doing so.
 */
export class SessionCatalog {
  private current: ToolView;

  constructor(
    private readonly views: ToolViews,
    readonly mode: PinMode,
    readonly group: string | null,
    revision: CatalogRevision,
  ) {
    this.current = views.of(revision, group);
  }

  get view(): ToolView {
    return this.current;
  }

  get revisionNumber(): number {
    return this.current.revision.revision_number;
  }

  /** Moves a latest-following session to `revision`; true when the tools it lists changed. */
  follow(revision: CatalogRevision): boolean {
    if (this.mode !== "latest" || revision.revision_number <= this.revisionNumber) return false;
    const next = this.views.of(revision, this.group);
    const changed = next.fingerprint !== this.current.fingerprint;
    this.current = next;
    return changed;
  }
}
