import { ErrorCode, type ListToolsResult } from "@modelcontextprotocol/sdk/types.js";
import { ErrorType } from "@toolmesh/schema";
import { type RevisionCatalog, UnknownRevisionError } from "../catalog.js";
import { RpcError } from "../rpc-error.js";
import type { SessionCatalog } from "../session-catalog.js";
import { META_PREFIX, decodeCursor, encodeCursor, toMcpTool } from "../tool-listing.js";
import type { ToolView, ToolViews } from "../tool-view.js";

export interface ToolsListDeps {
  catalog: RevisionCatalog;
  views: ToolViews;
  pageSize: number;
}

const invalidCursor = (text: string, why: string) =>
  new RpcError(ErrorCode.InvalidParams, `invalid cursor '${text.slice(0, 64)}': ${why}`, { type: ErrorType.badRequest });

/**
 * tools/list: the session's view, a page at a time. The cursor carries the revision it started on, so a
 * latest-following session that moves on mid-listing still gets the pages of one revision; the result's
 * `_meta` names the revision listed. A pinned session only pages through its own revision.
 */
export function createToolsListHandler({ catalog, views, pageSize }: ToolsListDeps) {
  return async (session: SessionCatalog, cursorText: string | undefined): Promise<ListToolsResult> => {
    let view: ToolView = session.view;
    let offset = 0;
    if (cursorText !== undefined) {
      const cursor = decodeCursor(cursorText);
      if (!cursor) throw invalidCursor(cursorText, "pass back a nextCursor from tools/list");
      const own = view.revision.revision_number;
      if (cursor.revision !== own && session.mode === "pinned")
        throw invalidCursor(cursorText, `it lists catalog revision ${cursor.revision}, and this session is pinned to revision ${own}`);
      if (cursor.revision !== own) {
        try {
          view = views.of(await catalog.revision(cursor.revision), session.group);
        } catch (err) {
          if (!(err instanceof UnknownRevisionError)) throw err;
          throw invalidCursor(cursorText, `catalog revision ${cursor.revision} does not exist; pass back a nextCursor from tools/list`);
        }
      }
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
