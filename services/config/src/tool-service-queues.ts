import { type ConfigPush, ConfigType, type ConfigValue, ToolServiceDescriptor, isReservedWorkspace } from "@toolmesh/schema";
import type { ConfigStore } from "./store/index.js";

/**
 * TrustGraph's agents (agent-manager-react) call a tool service only through its `request-queue` and
 * `response-queue`, and a tool-service without them fails their whole tool reload: every tool of the
 * workspace is lost to them, not only that one. toolmesh's short form names a `topic` instead. So a
 * `tool-service` value with a `topic` and no queues is stored with the queues that topic means in this
 * system's tenant (`request:<tenant>:<topic>`, `response:<tenant>:<topic>`, TrustGraph's queue ids): the
 * same topics toolmesh derives from `topic`, now written where TrustGraph reads them.
 *
 * Returns the item as it should be stored: unchanged unless it is such a value.
 */
export function withTrustGraphQueues(item: ConfigValue, tenant: string): ConfigValue {
  if (item.type !== ConfigType.toolService) return item;
  let json: unknown;
  try {
    json = JSON.parse(item.value);
  } catch {
    return item;
  }
  const parsed = ToolServiceDescriptor.safeParse(json);
  if (!parsed.success || parsed.data.topic === undefined || parsed.data.requestQueue !== undefined) return item;
  const { topic } = parsed.data;
  const completed = { ...(json as object), "request-queue": `request:${tenant}:${topic}`, "response-queue": `response:${tenant}:${topic}` };
  return { ...item, value: JSON.stringify(completed) };
}

/** What addTrustGraphQueuesAtStart wrote, and the push that tells of it (null when nothing to tell). */
export interface QueuesAdded {
  workspaces: string[];
  push: ConfigPush | null;
}

/**
 * At start: gives the stored `tool-service` values written before withTrustGraphQueues existed their
 * queues, one write per workspace that has any, and makes one push naming those workspaces, for config to
 * publish once it serves requests (readers re-read at once). TrustGraph 2.11.1's processors skip a push
 * that names no type (config's start-up poke) and hand their handler only the types a push names, and its
 * agent's tool handler needs `tool` and `tool-service` together: so the push names both, or a running
 * agent would keep the tool reload these values failed. Several replicas starting at once may each do it;
 * the values they write are the same.
 */
export async function addTrustGraphQueuesAtStart(store: ConfigStore, tenant: string): Promise<QueuesAdded> {
  const byWorkspace = new Map<string, ConfigValue[]>();
  for (const { workspace, ...item } of await store.valuesAllWorkspaces(ConfigType.toolService)) {
    const completed = withTrustGraphQueues(item, tenant);
    if (completed === item) continue;
    const put = byWorkspace.get(workspace);
    if (put) put.push(completed);
    else byWorkspace.set(workspace, [completed]);
  }
  let version = 0;
  for (const [workspace, put] of byWorkspace) version = (await store.write(workspace, { put })).version;
  const workspaces = [...byWorkspace.keys()];
  const visible = workspaces.filter((workspace) => !isReservedWorkspace(workspace));
  const changes = { [ConfigType.tool]: visible, [ConfigType.toolService]: visible };
  return { workspaces, push: visible.length > 0 ? { version, changes, workspace_changes: null } : null };
}
