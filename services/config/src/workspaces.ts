import { type ConfigPush, type ConfigValue, WorkspaceRegistry, isReservedWorkspace } from "@toolmesh/schema";
import type { StoreWriteResult } from "./store/index.js";

// How workspaces come and go (TrustGraph's rules, plus one of toolmesh's own):
// - a workspace exists when it is registered: config `__workspaces__ / workspace / <id>`;
// - writing or deleting those entries registers or unregisters workspaces (TrustGraph's IAM does this);
// - a put into a workspace that is not registered registers it (toolmesh: a workspace written to exists,
//   as before workspaces were registered); `default` is registered at start;
// - a new workspace gets the `__template__` items it lacks;
// - `_`-prefixed workspaces (`__workspaces__`, `__template__`) store items but are never registered, have
//   no queue, and are left out of pushes.

const WORKSPACE_ID = /^[A-Za-z0-9_.:=-]{1,100}$/;

/** Why `id` cannot be a registered workspace (it names a queue), or null. */
export function workspaceIdProblem(id: string): string | null {
  if (isReservedWorkspace(id)) return `workspace '${id}' is reserved ('_' prefix): it stores items but is no workspace of its own`;
  if (!WORKSPACE_ID.test(id))
    return `workspace '${id}' cannot have its own queue: ids are 1-100 characters of A-Z, a-z, 0-9, '_', '.', ':', '=', '-'`;
  return null;
}

/** The workspace ids a put registers explicitly: the keys of `workspace` items put into `__workspaces__`. */
export function registrationsIn(workspace: string, values: ConfigValue[]): string[] {
  return workspace === WorkspaceRegistry.workspace ? values.filter((v) => v.type === WorkspaceRegistry.type).map((v) => v.key) : [];
}

/**
 * The push after a write: the types it touched in `workspace`, and those each new workspace got from the
 * template (reserved workspaces left out, as TrustGraph does), and the workspaces it created or deleted.
 */
export function pushFor(workspace: string, types: Iterable<string>, result: StoreWriteResult): ConfigPush {
  // A Map, not a plain object: a type is any string a peer sent, `__proto__` included.
  const changes = new Map<string, string[]>();
  const add = (type: string, ws: string) => {
    if (isReservedWorkspace(ws)) return;
    const list = changes.get(type) ?? [];
    if (!list.includes(ws)) list.push(ws);
    changes.set(type, list);
  };
  for (const type of types) add(type, workspace);
  for (const [ws, provisioned] of Object.entries(result.provisioned)) for (const type of provisioned) add(type, ws);
  const { created, deleted } = result;
  return {
    version: result.version,
    changes: Object.fromEntries(changes),
    workspace_changes: created.length > 0 || deleted.length > 0 ? { created, deleted } : null,
  };
}
