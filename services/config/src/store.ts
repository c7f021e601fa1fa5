import { mkdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { ConfigKey, ConfigValue } from "@toolmesh/schema";

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

  /** The items found, in request order, and the keys that are not there. */
  get(workspace: string, keys: ConfigKey[]): { values: ConfigValue[]; missing: ConfigKey[] } {
    const select = this.db.prepare("SELECT value FROM items WHERE workspace = ? AND type = ? AND key = ?");
    const values: ConfigValue[] = [];
    const missing: ConfigKey[] = [];
    for (const { type, key } of keys) {
      const row = select.get(workspace, type, key) as { value: string } | undefined;
      if (row) values.push({ type, key, value: row.value });
      else missing.push({ type, key });
    }
    return { values, missing };
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
   * Sound because the check runs in the write transaction and one process owns the database.
   */
  put(workspace: string, values: ConfigValue[], maxTypeReplyBytes = Number.POSITIVE_INFINITY): number {
    const upsert = this.db.prepare(
      "INSERT INTO items (workspace, type, key, value) VALUES (?, ?, ?, ?) ON CONFLICT (workspace, type, key) DO UPDATE SET value = excluded.value",
    );
    const types = [...new Set(values.map((v) => v.type))];
    return this.db.transaction(() => {
      const before = new Map(types.map((type) => [type, this.getvaluesReplyBytes(workspace, type)]));
      for (const v of values) upsert.run(workspace, v.type, v.key, v.value);
      for (const type of types) {
        const after = this.getvaluesReplyBytes(workspace, type);
        if (after > maxTypeReplyBytes && after > before.get(type)!) throw new TypeOverLimit(type, after, maxTypeReplyBytes);
      }
      return this.bump();
    })();
  }

  /** Deletes the keys (all of them must exist, checked by the caller) and bumps the version once. */
  delete(workspace: string, keys: ConfigKey[]): number {
    const remove = this.db.prepare("DELETE FROM items WHERE workspace = ? AND type = ? AND key = ?");
    return this.db.transaction(() => {
      for (const { type, key } of keys) remove.run(workspace, type, key);
      return this.bump();
    })();
  }

  close(): void {
    this.db.close();
  }

  private bump(): number {
    return (this.db.prepare("UPDATE meta SET value = value + 1 WHERE name = 'version' RETURNING value").get() as { value: number }).value;
  }
}
