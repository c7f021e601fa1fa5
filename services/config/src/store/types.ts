import type { ConfigKey, ConfigReplyValue, ConfigValue } from "@toolmesh/schema";

/** `{"version":N,"values":[` ... `]}` around a getvalues reply's items, rounded up. */
export const REPLY_ENVELOPE_BYTES = 64;
/** Per item of a getvalues reply: `{"type":,"key":,"value":},` around its three JSON strings. */
export const REPLY_ITEM_BYTES = 26;

/**
 * A put that would make one type's getvalues reply (in one workspace) larger than allowed. Thrown inside the
 * put's transaction, so nothing of the put is stored.
 */
export class TypeOverLimit extends Error {
  override name = "TypeOverLimit";
  constructor(
    readonly type: string,
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`type '${type}' would need a ${bytes}-byte reply, over the limit of ${limit}`);
  }
}

export interface StoreChange {
  put?: ConfigValue[];
  /** Keys to delete; missing ones are ignored. */
  delete?: ConfigKey[];
  /** Workspace ids to register (if they are not yet). */
  register?: string[];
}

export interface StoreWriteResult {
  version: number;
  /** Workspaces registered by this change (they were not before). */
  created: string[];
  /** Workspaces whose registration this change removed. */
  deleted: string[];
  /** For each created workspace, the types it got from `__template__`. */
  provisioned: Record<string, string[]>;
}

/**
 * Config items: (workspace, type, key) -> value, plus one version number that every change bumps, across
 * workspaces. Each change is one transaction with one version bump, so a crash never leaves half a put and
 * versions are never repeated or go backwards, however many replicas share the store.
 * Implementations: SQLite (one process, the embedded default) and PostgreSQL (DATABASE_URL, any replicas).
 */
export interface ConfigStore {
  /** Where the items live, for the start-up log (never a password). */
  readonly location: string;
  version(): Promise<number>;
  /** The items asked for, in request order; a key that is not there has value null (TrustGraph's answer). */
  get(workspace: string, keys: ConfigKey[]): Promise<ConfigReplyValue[]>;
  keys(workspace: string, type: string): Promise<string[]>;
  values(workspace: string, type: string): Promise<ConfigValue[]>;
  /** Every key of a type in every workspace (reserved ones included), by workspace then key. */
  keysAllWorkspaces(type: string): Promise<Array<{ workspace: string; type: string; key: string }>>;
  /** Every item of a type in every workspace (reserved ones included), by workspace then key. */
  valuesAllWorkspaces(type: string): Promise<Array<ConfigValue & { workspace: string }>>;
  /** The registered workspaces: the keys of `__workspaces__ / workspace`. */
  workspaces(): Promise<string[]>;
  /** Every item of a workspace as type -> key -> value. */
  all(workspace: string): Promise<Record<string, Record<string, string>>>;
  /**
   * Bytes of the getvalues reply for one type in one workspace, as JSON on the wire: each item with its
   * strings escaped exactly as JSON.stringify does, plus the envelope.
   */
  getvaluesReplyBytes(workspace: string, type: string): Promise<number>;
  /**
   * One change as one transaction, with one version bump: puts or deletes items of `workspace`, registers
   * the workspaces in `register` (`__workspaces__ / workspace / <id>`), and fills every workspace that became
   * registered with the `__template__` items it lacks. Reports the registrations that appeared and went,
   * and the types each new workspace got from the template. Throws TypeOverLimit (storing nothing) when a
   * type the put touches would then need a getvalues reply over `maxTypeReplyBytes` — unless the put makes
   * that type smaller, so a type stored before the bound existed can still be trimmed.
   */
  write(workspace: string, change: StoreChange, maxTypeReplyBytes?: number): Promise<StoreWriteResult>;
  /**
   * At start: registers `default`, and — once, for a store from before workspaces were registered — every
   * other workspace that has items, except reserved ones and those `accept` refuses (names that cannot be
   * queues). Returns the write, or null when nothing needed registering.
   */
  registerAtStart(accept: (workspace: string) => boolean): Promise<StoreWriteResult | null>;
  close(): Promise<void>;
}

/** The values of one put with a key given twice reduced to the last, as sequential upserts would leave them. */
export function lastOfEachKey(values: ConfigValue[]): ConfigValue[] {
  return [...new Map(values.map((v) => [JSON.stringify([v.type, v.key]), v])).values()];
}

/**
 * Items as type -> key -> value. Types and keys are any string a peer sent: built with Object.fromEntries
 * (own properties only), since assigning `obj["__proto__"]` on a plain object reaches Object.prototype.
 */
export function byTypeAndKey(rows: ConfigValue[]): Record<string, Record<string, string>> {
  const types = new Map<string, Array<[string, string]>>();
  for (const row of rows) {
    const items = types.get(row.type);
    if (items) items.push([row.key, row.value]);
    else types.set(row.type, [[row.key, row.value]]);
  }
  return Object.fromEntries([...types].map(([type, items]) => [type, Object.fromEntries(items)]));
}
