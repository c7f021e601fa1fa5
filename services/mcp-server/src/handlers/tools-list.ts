import { ErrorCode, type ListToolsResult, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { RevisionCatalog } from "../catalog.js";
import type { SessionCatalog } from "../session-catalog.js";
import { META_PREFIX, decodeCursor, encodeCursor, toMcpTool } from "../tool-listing.js";
import type { ToolViews } from "../tool-view.js";

export interface ToolsListDeps {
  catalog: RevisionCatalog;
  views: ToolViews;
  pageSize: number;
}

/**
 * tools/list: the session's view, a page at a time. The cursor carries the revision it started on, so a
 * latest-following session that moves on mid-listing still gets the pages of one revision; the result's
 * `_meta` names the revision listed.
 */
export function createToolsListHandler({ catalog, views, pageSize }: ToolsListDeps) {
  return async (session: SessionCatalog, cursorText: string | undefined): Promise<ListToolsResult> => {
    let view = session.view;
    let offset = 0;
    if (cursorText !== undefined) {
      const cursor = decodeCursor(cursorText);
      if (!cursor)
        throw new McpError(ErrorCode.InvalidParams, `invalid cursor '${cursorText.slice(0, 64)}': pass back a nextCursor from tools/list`);
      if (cursor.revision !== view.revision.revision_number) view = views.of(await catalog.revision(cursor.revision), session.group);
      offset = cursor.offset;
    }
    const page = view.tools.slice(offset, offset + pageSize);
    const next = offset + pageSize;
    return {
      tools: page.map(toMcpTool),
      ...(next < view.tools.length ? { nextCursor: encodeCursor({ revision: view.revision.revision_number, offset: next }) } : {}),
      _meta: {
        [`${META_PREFIX}/catalog_revision`]: view.revision.revision_number,
        [`${META_PREFIX}/content_hash`]: view.revision.content_hash,
        [`${META_PREFIX}/pin`]: session.mode,
      },
    };
  };
}
