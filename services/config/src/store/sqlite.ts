import { makeFolder } from "@toolmesh/base";
import { join } from "node:path";
import Database from "better-sqlite3";
import {
  type ConfigKey,
  type ConfigReplyValue,
  type ConfigValue,
  TEMPLATE_WORKSPACE,
  WorkspaceRegistry,
  isReservedWorkspace,
} from "@toolmesh/schema";
import {
  type ConfigStore,
  byTypeAndKey,
  REPLY_ENVELOPE_BYTES,
  REPLY_ITEM_BYTES,
  type StoreChange,
  type StoreWriteResult,
  TypeOverLimit,
} from "./types.js";

/**
 * Config items in a SQLite file (the embedded default, one process). better-sqlite3 is synchronous: each
 * method does its work at once and hands back a settled promise, so a change's transaction never spans an
 * await and nothing else can run inside it.
 */
export class SqliteConfigStore implements ConfigStore {
  private readonly db: Database.Database;

  constructor(readonly location: string) {
    this.db = new Database(location);
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
  static open(dir: string): SqliteConfigStore {
    makeFolder(dir);
    return new SqliteConfigStore(join(dir, "config.db"));
  }

  async version(): Promise<number> {
    return this.currentVersion();
  }

  async get(workspace: string, keys: ConfigKey[]): Promise<ConfigReplyValue[]> {
    const select = this.db.prepare("SELECT value FROM items WHERE workspace = ? AND type = ? AND key = ?");
    return keys.map(({ type, key }) => ({
      type,
      key,
      value: (select.get(workspace, type, key) as { value: string } | undefined)?.value ?? null,
    }));
  }

  async keys(workspace: string, type: string): Promise<string[]> {
    return this.keysNow(workspace, type);
  }

  async values(workspace: string, type: string): Promise<ConfigValue[]> {
    return this.db
      .prepare("SELECT type, key, value FROM items WHERE workspace = ? AND type = ? ORDER BY key")
      .all(workspace, type) as ConfigValue[];
  }

  async keysAllWorkspaces(type: string): Promise<Array<{ workspace: string; type: string; key: string }>> {
    return this.db.prepare("SELECT workspace, type, key FROM items WHERE type = ? ORDER BY workspace, key").all(type) as Array<{
      workspace: string;
      type: string;
      key: string;
    }>;
  }

  async valuesAllWorkspaces(type: string): Promise<Array<ConfigValue & { workspace: string }>> {
    return this.db.prepare("SELECT workspace, type, key, value FROM items WHERE type = ? ORDER BY workspace, key").all(type) as Array<
      ConfigValue & { workspace: string }
    >;
  }

  async workspaces(): Promise<string[]> {
    return this.workspacesNow();
  }

  async all(workspace: string): Promise<Record<string, Record<string, string>>> {
    const rows = this.db
      .prepare("SELECT type, key, value FROM items WHERE workspace = ? ORDER BY type, key")
      .all(workspace) as ConfigValue[];
    return byTypeAndKey(rows);
  }

  async getvaluesReplyBytes(workspace: string, type: string): Promise<number> {
    return this.replyBytesNow(workspace, type);
  }

  async write(workspace: string, change: StoreChange, maxTypeReplyBytes = Number.POSITIVE_INFINITY): Promise<StoreWriteResult> {
    return this.writeNow(workspace, change, maxTypeReplyBytes);
  }

  async registerAtStart(accept: (workspace: string) => boolean): Promise<StoreWriteResult | null> {
    const migrated = this.db.prepare("SELECT 1 FROM meta WHERE name = 'workspaces_registered'").get() !== undefined;
    const withItems = migrated
      ? []
      : (this.db.prepare("SELECT DISTINCT workspace FROM items ORDER BY workspace").all() as Array<{ workspace: string }>).map(
          (r) => r.workspace,
        );
    const registered = new Set(this.workspacesNow());
    const register = [...new Set(["default", ...withItems])].filter((ws) => !registered.has(ws) && !isReservedWorkspace(ws) && accept(ws));
    this.db.prepare("INSERT OR IGNORE INTO meta (name, value) VALUES ('workspaces_registered', 1)").run();
    return register.length > 0 ? this.writeNow(WorkspaceRegistry.workspace, { register }, Number.POSITIVE_INFINITY) : null;
  }

  async close(): Promise<void> {
    this.db.close();
  }

  private currentVersion(): number {
    return (this.db.prepare("SELECT value FROM meta WHERE name = 'version'").get() as { value: number }).value;
  }

  private keysNow(workspace: string, type: string): string[] {
    return (
      this.db.prepare("SELECT key FROM items WHERE workspace = ? AND type = ? ORDER BY key").all(workspace, type) as Array<{ key: string }>
    ).map((row) => row.key);
  }

  private workspacesNow(): string[] {
    return this.keysNow(WorkspaceRegistry.workspace, WorkspaceRegistry.type);
  }

  /** SQLite's json_quote escapes as JSON.stringify does. */
  private replyBytesNow(workspace: string, type: string): number {
    const row = this.db
      .prepare(
        `SELECT COALESCE(SUM(length(CAST(json_quote(type) AS BLOB)) + length(CAST(json_quote(key) AS BLOB))
           + length(CAST(json_quote(value) AS BLOB)) + ${REPLY_ITEM_BYTES}), 0) AS bytes
         FROM items WHERE workspace = ? AND type = ?`,
      )
      .get(workspace, type) as { bytes: number };
    return row.bytes + REPLY_ENVELOPE_BYTES;
  }

  /** The size bound is sound because the check runs in the write transaction and one process owns the file. */
  private writeNow(workspace: string, change: StoreChange, maxTypeReplyBytes: number): StoreWriteResult {
    const upsert = this.db.prepare(
      "INSERT INTO items (workspace, type, key, value) VALUES (?, ?, ?, ?) ON CONFLICT (workspace, type, key) DO UPDATE SET value = excluded.value",
    );
    const remove = this.db.prepare("DELETE FROM items WHERE workspace = ? AND type = ? AND key = ?");
    const values = change.put ?? [];
    const types = [...new Set(values.map((v) => v.type))];
    return this.db.transaction((): StoreWriteResult => {
      const registeredBefore = new Set(this.workspacesNow());
      const before = new Map(types.map((type) => [type, this.replyBytesNow(workspace, type)]));
      for (const v of values) upsert.run(workspace, v.type, v.key, v.value);
      for (const type of types) {
        const after = this.replyBytesNow(workspace, type);
        if (after > maxTypeReplyBytes && after > before.get(type)!) throw new TypeOverLimit(type, after, maxTypeReplyBytes);
      }
      for (const { type, key } of change.delete ?? []) remove.run(workspace, type, key);
      for (const id of change.register ?? []) upsert.run(WorkspaceRegistry.workspace, WorkspaceRegistry.type, id, WorkspaceRegistry.value);
      const registered = new Set(this.workspacesNow());
      const created = [...registered].filter((id) => !registeredBefore.has(id));
      const provisioned = Object.fromEntries(created.map((id) => [id, this.provisionFromTemplate(id)]));
      return { version: this.bump(), created, deleted: [...registeredBefore].filter((id) => !registered.has(id)), provisioned };
    })();
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

  private bump(): number {
    return (this.db.prepare("UPDATE meta SET value = value + 1 WHERE name = 'version' RETURNING value").get() as { value: number }).value;
  }
}
