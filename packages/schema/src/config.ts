import { z } from "zod";
import { NullableWireError } from "./errors.js";
import { nullAsAbsentText, nullAsEmptyList } from "./trustgraph-nulls.js";

/**
 * TrustGraph's config operations. `getkeys-all-ws` and `getvalues-all-ws` span every workspace and are
 * served on the system queue only; the others act on one workspace.
 */
export const ConfigOperation = z.enum(["get", "list", "getvalues", "put", "delete", "config", "getkeys-all-ws", "getvalues-all-ws"]);
export type ConfigOperation = z.infer<typeof ConfigOperation>;

/** Operations on one workspace: the only ones a per-workspace queue serves. */
export const WorkspaceConfigOperations: readonly ConfigOperation[] = ["get", "list", "getvalues", "put", "delete", "config"];

/** Where TrustGraph registers its workspaces: config `__workspaces__ / workspace / <id>` = `{"enabled": true}`. */
export const WorkspaceRegistry = { workspace: "__workspaces__", type: "workspace", value: '{"enabled": true}' } as const;
/** Workspace whose items are copied into each new workspace (TrustGraph's provisioning). */
export const TEMPLATE_WORKSPACE = "__template__";

/** Workspaces starting with `_` store items normally but are no workspace of their own: no queue, no pushes. */
export function isReservedWorkspace(workspace: string): boolean {
  return workspace.startsWith("_");
}

export const ConfigKey = z.object({
  type: z.string().min(1),
  key: z.string().min(1),
});
export type ConfigKey = z.infer<typeof ConfigKey>;

/** A stored item; `value` is the item's JSON, kept as a string exactly as TrustGraph stores it. */
export const ConfigValue = z.object({
  type: z.string().min(1),
  key: z.string().min(1),
  value: z.string(),
});
export type ConfigValue = z.infer<typeof ConfigValue>;

/**
 * An item in a reply: `value` is null for a key `get` did not find (TrustGraph's answer), and `workspace`
 * names the item's workspace in `getkeys-all-ws` / `getvalues-all-ws` replies.
 */
export const ConfigReplyValue = z.object({
  type: z.string(),
  key: z.string(),
  value: z.string().nullable(),
  workspace: z.string().optional(),
});
export type ConfigReplyValue = z.infer<typeof ConfigReplyValue>;

/**
 * A config request. `workspace` absent means `default`; an empty one (TrustGraph's default) is refused
 * by the system queue for operations on one workspace, and ignored by the `*-all-ws` ones. TrustGraph's
 * api-gateway sends the fields an operation does not use as null.
 */
export const ConfigRequest = z.object({
  operation: ConfigOperation,
  workspace: z.string().default("default"),
  keys: nullAsEmptyList(ConfigKey),
  type: nullAsAbsentText(),
  values: nullAsEmptyList(ConfigValue),
});
export type ConfigRequest = z.output<typeof ConfigRequest>;
export type ConfigRequestWire = z.input<typeof ConfigRequest>;

export const ConfigResponse = z.object({
  version: z.number().int().nullable().default(null),
  values: z.array(ConfigReplyValue).default([]),
  directory: z.array(z.string()).default([]),
  /** For `config`: type -> key -> JSON string. */
  config: z.record(z.string(), z.record(z.string(), z.string())).nullable().default(null),
  error: NullableWireError,
});
export type ConfigResponse = z.output<typeof ConfigResponse>;

/** Workspaces registered or unregistered by a change (TrustGraph's WorkspaceChanges). */
export const WorkspaceChanges = z.object({
  created: z.array(z.string()).default([]),
  deleted: z.array(z.string()).default([]),
});
export type WorkspaceChanges = z.output<typeof WorkspaceChanges>;

/**
 * Pushed on `notify/config` after every change: which types changed, in which workspaces, and which
 * workspaces were created or deleted (null when none). toolmesh's receivers re-read every type they care
 * about, not only the changed ones.
 */
export const ConfigPush = z.object({
  version: z.number().int(),
  changes: z.record(z.string(), z.array(z.string())).default({}),
  workspace_changes: WorkspaceChanges.nullable().default(null),
});
export type ConfigPush = z.output<typeof ConfigPush>;
