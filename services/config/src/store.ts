import { mkdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { type ConfigKey, type ConfigReplyValue, type ConfigValue, TEMPLATE_WORKSPACE, WorkspaceRegistry, isReservedWorkspace } from "@toolmesh/schema";

/** `{"version":N,"values":[` ... `]}` around a getvalues reply's items, rounded up. */
const REPLY_ENVELOPE_BYTES = 64;

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
 * Config items in SQLite: (workspace, type, key) -> value, plus one version number that every change
 * bumps, across workspaces. Each change is one transaction, so a crash never leaves half a put.
 */
export class ConfigStore {
  private readonly db: Database.Database;

  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = NORMAL");
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS items (
        workspace TEXT NOT NULL, type TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
        PRIMARY KEY (workspace, type, key)
      );
      CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
      INSERT OR IGNORE INTO meta (name, value) VALUES ('version', 0);
    `);
  }

  /** Opens `{dir}/config.db`, creating the folder. */
  static open(dir: string): ConfigStore {
    mkdirSync(dir, { recursive: true });
    return new ConfigStore(join(dir, "config.db"));
  }

  get version(): number {
    return (this.db.prepare("SELECT value FROM meta WHERE name = 'version'").get() as { value: number }).value;
  }

  /** The items asked for, in request order; a key that is not there has value null (TrustGraph's answer). */
  get(workspace: string, keys: ConfigKey[]): ConfigReplyValue[] {
    const select = this.db.prepare("SELECT value FROM items WHERE workspace = ? AND type = ? AND key = ?");
    return keys.map(({ type, key }) => ({ type, key, value: (select.get(workspace, type, key) as { value: string } | undefined)?.value ?? null }));
  }

  keys(workspace: string, type: string): string[] {
    return (this.db.prepare("SELECT key FROM items WHERE workspace = ? AND type = ? ORDER BY key").all(workspace, type) as Array<{ key: string }>).map(
      (row) => row.key,
    );
  }

  values(workspace: string, type: string): ConfigValue[] {
    return this.db
      .prepare("SELECT type, key, value FROM items WHERE workspace = ? AND type = ? ORDER BY key")
      .all(workspace, type) as ConfigValue[];
  }

  /** Every key of a type in every workspace (reserved ones included), by workspace then key. */
  keysAllWorkspaces(type: string): Array<{ workspace: string; type: string; key: string }> {
    return this.db.prepare("SELECT workspace, type, key FROM items WHERE type = ? ORDER BY workspace, key").all(type) as Array<{ workspace: string; type: string; key: string }>;
  }

  /** Every item of a type in every workspace (reserved ones included), by workspace then key. */
  valuesAllWorkspaces(type: string): Array<ConfigValue & { workspace: string }> {
    return this.db.prepare("SELECT workspace, type, key, value FROM items WHERE type = ? ORDER BY workspace, key").all(type) as Array<ConfigValue & { workspace: string }>;
  }

  /** The registered workspaces: the keys of `__workspaces__ / workspace`. */
  workspaces(): string[] {
    return this.keys(WorkspaceRegistry.workspace, WorkspaceRegistry.type);
  }

  /** Every item of a workspace as type -> key -> value. */
  all(workspace: string): Record<string, Record<string, string>> {
    const config: Record<string, Record<string, string>> = {};
    const rows = this.db.prepare("SELECT type, key, value FROM items WHERE workspace = ? ORDER BY type, key").all(workspace) as ConfigValue[];
    for (const row of rows) (config[row.type] ??= {})[row.key] = row.value;
    return config;
  }

  /**
   * Bytes of the getvalues reply for one type in one workspace, as JSON on the wire: each item is
   * `{"type":..,"key":..,"value":..},` with its strings escaped exactly as JSON.stringify does (SQLite's
   * json_quote escapes the same way), plus the envelope.
   */
  getvaluesReplyBytes(workspace: string, type: string): number {
    const row = this.db
      .prepare(
        `SELECT COALESCE(SUM(length(CAST(json_quote(type) AS BLOB)) + length(CAST(json_quote(key) AS BLOB))
           + length(CAST(json_quote(value) AS BLOB)) + 26), 0) AS bytes
         FROM items WHERE workspace = ? AND type = ?`,
      )
      .get(workspace, type) as { bytes: number };
    return row.bytes + REPLY_ENVELOPE_BYTES;
  }

  /**
   * Writes all values and bumps the version once; returns the new version. Throws TypeOverLimit (storing
   * nothing) when a type the put touches would then need a getvalues reply over `maxTypeReplyBytes` — unless
   * the put makes that type smaller, so a type stored before the bound existed can still be trimmed.
   */
  put(workspace: string, values: ConfigValue[], maxTypeReplyBytes = Number.POSITIVE_INFINITY): number {
    return this.write(workspace, { put: values }, maxTypeReplyBytes).version;
  }

  /** Deletes the keys (missing ones are ignored) and bumps the version once. */
  delete(workspace: string, keys: ConfigKey[]): number {
    return this.write(workspace, { delete: keys }).version;
  }

  /**
   * One change as one transaction, with one version bump: puts or deletes items of `workspace`, registers
   * the workspaces in `register` (`__workspaces__ / workspace / <id>`), and fills every workspace that became
   * registered with the `__template__` items it lacks. Reports the registrations that appeared and went,
   * and the types each new workspace got from the template. The size bound is as for put(); sound because
   * the check runs in the write transaction and one process owns the database.
   */
  write(workspace: string, change: StoreChange, maxTypeReplyBytes = Number.POSITIVE_INFINITY): StoreWriteResult {
    const upsert = this.db.prepare(
      "INSERT INTO items (workspace, type, key, value) VALUES (?, ?, ?, ?) ON CONFLICT (workspace, type, key) DO UPDATE SET value = excluded.value",
    );
    const remove = this.db.prepare("DELETE FROM items WHERE workspace = ? AND type = ? AND key = ?");
    const values = change.put ?? [];
    const types = [...new Set(values.map((v) => v.type))];
    return this.db.transaction((): StoreWriteResult => {
      const registeredBefore = new Set(this.workspaces());
      const before = new Map(types.map((type) => [type, this.getvaluesReplyBytes(workspace, type)]));
      for (const v of values) upsert.run(workspace, v.type, v.key, v.value);
      for (const type of types) {
        const after = this.getvaluesReplyBytes(workspace, type);
        if (after > maxTypeReplyBytes && after > before.get(type)!) throw new TypeOverLimit(type, after, maxTypeReplyBytes);
      }
      for (const { type, key } of change.delete ?? []) remove.run(workspace, type, key);
      for (const id of change.register ?? []) upsert.run(WorkspaceRegistry.workspace, WorkspaceRegistry.type, id, WorkspaceRegistry.value);
      const registered = new Set(this.workspaces());
      const created = [...registered].filter((id) => !registeredBefore.has(id));
      const provisioned = Object.fromEntries(created.map((id) => [id, this.provisionFromTemplate(id)]));
      return { version: this.bump(), created, deleted: [...registeredBefore].filter((id) => !registered.has(id)), provisioned };
    })();
  }

  /**
   * At start: registers `default`, and — once, for a store from before workspaces were registered — every
   * other workspace that has items, except reserved ones and those `accept` refuses (names that cannot be
   * queues). Returns the
   * write, or null when nothing needed registering.
   */
  registerAtStart(accept: (workspace: string) => boolean): StoreWriteResult | null {
    const migrated = this.db.prepare("SELECT 1 FROM meta WHERE name = 'workspaces_registered'").get() !== undefined;
    const withItems = migrated ? [] : (this.db.prepare("SELECT DISTINCT workspace FROM items ORDER BY workspace").all() as Array<{ workspace: string }>).map((r) => r.workspace);
    const registered = new Set(this.workspaces());
    const register = [...new Set(["default", ...withItems])].filter((ws) => !registered.has(ws) && !isReservedWorkspace(ws) && accept(ws));
    this.db.prepare("INSERT OR IGNORE INTO meta (name, value) VALUES ('workspaces_registered', 1)").run();
    return register.length > 0 ? this.write(WorkspaceRegistry.workspace, { register }) : null;
  }

  /** Copies the template's items a workspace lacks into it; returns the types written. */
  private provisionFromTemplate(workspace: string): string[] {
    const rows = this.db
      .prepare(
        `INSERT INTO items (workspace, type, key, value)
           SELECT ?, type, key, value FROM items WHERE workspace = ? ORDER BY type, key
         ON CONFLICT (workspace, type, key) DO NOTHING RETURNING type`,
      )
      .all(workspace, TEMPLATE_WORKSPACE) as Array<{ type: string }>;
    return [...new Set(rows.map((r) => r.type))];
  }

  close(): void {
    this.db.close();
  }

  private bump(): number {
    return (this.db.prepare("UPDATE meta SET value = value + 1 WHERE name = 'version' RETURNING value").get() as { value: number }).value;
  }
}
