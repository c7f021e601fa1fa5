import { type Db, type Migration, type Sql, databaseLocation, openDatabase, type PoolSettings } from "@toolmesh/base";
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
  lastOfEachKey,
} from "./types.js";

const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: "config items and the version",
    sql: `
      CREATE TABLE config_items (
        workspace TEXT NOT NULL, type TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
        PRIMARY KEY (workspace, type, key)
      );
      CREATE INDEX config_items_by_type ON config_items (type, workspace, key);
      CREATE TABLE config_meta (name TEXT PRIMARY KEY, value BIGINT NOT NULL);
      INSERT INTO config_meta (name, value) VALUES ('version', 0);`,
  },
];

/**
 * Config items in PostgreSQL (DATABASE_URL), shared by every config replica. Each change is one
 * transaction that first locks the version row: changes from all replicas run one after another, each sees
 * every change committed before it (registrations, type sizes), and the version it bumps to is the next in
 * commit order — never repeated, never backwards.
 */
export class PostgresConfigStore implements ConfigStore {
  private constructor(
    private readonly sql: Sql,
    readonly location: string,
  ) {}

  /** Connects and applies the migrations (safe when several replicas start at once). */
  static async open(url: string, pool: PoolSettings = {}): Promise<PostgresConfigStore> {
    return new PostgresConfigStore(await openDatabase(url, "config", MIGRATIONS, pool), databaseLocation(url));
  }

  async version(): Promise<number> {
    const [row] = await this.sql<Array<{ value: number }>>`SELECT value FROM config_meta WHERE name = 'version'`;
    return row!.value;
  }

  async get(workspace: string, keys: ConfigKey[]): Promise<ConfigReplyValue[]> {
    const rows = await this.sql<Array<{ type: string; key: string; value: string }>>`
      SELECT type, key, value FROM config_items
      WHERE workspace = ${workspace} AND (type, key) IN (SELECT * FROM unnest(${keys.map((k) => k.type)}::text[], ${keys.map((k) => k.key)}::text[]))`;
    const found = new Map(rows.map((r) => [JSON.stringify([r.type, r.key]), r.value]));
    return keys.map(({ type, key }) => ({ type, key, value: found.get(JSON.stringify([type, key])) ?? null }));
  }

  keys(workspace: string, type: string): Promise<string[]> {
    return keysOf(this.sql, workspace, type);
  }

  async values(workspace: string, type: string): Promise<ConfigValue[]> {
    return [
      ...(await this.sql<
        ConfigValue[]
      >`SELECT type, key, value FROM config_items WHERE workspace = ${workspace} AND type = ${type} ORDER BY key COLLATE "C"`),
    ];
  }

  async keysAllWorkspaces(type: string): Promise<Array<{ workspace: string; type: string; key: string }>> {
    return [
      ...(await this.sql<Array<{ workspace: string; type: string; key: string }>>`
        SELECT workspace, type, key FROM config_items WHERE type = ${type} ORDER BY workspace COLLATE "C", key COLLATE "C"`),
    ];
  }

  async valuesAllWorkspaces(type: string): Promise<Array<ConfigValue & { workspace: string }>> {
    return [
      ...(await this.sql<Array<ConfigValue & { workspace: string }>>`
        SELECT workspace, type, key, value FROM config_items WHERE type = ${type} ORDER BY workspace COLLATE "C", key COLLATE "C"`),
    ];
  }

  workspaces(): Promise<string[]> {
    return keysOf(this.sql, WorkspaceRegistry.workspace, WorkspaceRegistry.type);
  }

  async all(workspace: string): Promise<Record<string, Record<string, string>>> {
    const rows = await this.sql<
      ConfigValue[]
    >`SELECT type, key, value FROM config_items WHERE workspace = ${workspace} ORDER BY type COLLATE "C", key COLLATE "C"`;
    return byTypeAndKey(rows);
  }

  getvaluesReplyBytes(workspace: string, type: string): Promise<number> {
    return replyBytes(this.sql, workspace, type);
  }

  async write(workspace: string, change: StoreChange, maxTypeReplyBytes = Number.POSITIVE_INFINITY): Promise<StoreWriteResult> {
    const values = lastOfEachKey(change.put ?? []);
    const types = [...new Set(values.map((v) => v.type))];
    return this.sql.begin(async (tx) => {
      // The lock that puts every replica's changes in one order; held until commit.
      await tx`SELECT value FROM config_meta WHERE name = 'version' FOR UPDATE`;
      const registeredBefore = new Set(await keysOf(tx, WorkspaceRegistry.workspace, WorkspaceRegistry.type));
      const before = new Map<string, number>();
      for (const type of types) before.set(type, await replyBytes(tx, workspace, type));
      if (values.length > 0)
        await upsert(
          tx,
          values.map((v) => ({ workspace, ...v })),
        );
      for (const type of types) {
        const after = await replyBytes(tx, workspace, type);
        if (after > maxTypeReplyBytes && after > before.get(type)!) throw new TypeOverLimit(type, after, maxTypeReplyBytes);
      }
      const removed = change.delete ?? [];
      if (removed.length > 0) {
        await tx`DELETE FROM config_items WHERE workspace = ${workspace}
          AND (type, key) IN (SELECT * FROM unnest(${removed.map((k) => k.type)}::text[], ${removed.map((k) => k.key)}::text[]))`;
      }
      const register = [...new Set(change.register ?? [])];
      if (register.length > 0) {
        await upsert(
          tx,
          register.map((id) => ({
            workspace: WorkspaceRegistry.workspace,
            type: WorkspaceRegistry.type,
            key: id,
            value: WorkspaceRegistry.value,
          })),
        );
      }
      const registered = new Set(await keysOf(tx, WorkspaceRegistry.workspace, WorkspaceRegistry.type));
      const created = [...registered].filter((id) => !registeredBefore.has(id));
      const provisioned: Record<string, string[]> = {};
      for (const id of created) provisioned[id] = await provisionFromTemplate(tx, id);
      const [bumped] = await tx<Array<{ value: number }>>`UPDATE config_meta SET value = value + 1 WHERE name = 'version' RETURNING value`;
      return { version: bumped!.value, created, deleted: [...registeredBefore].filter((id) => !registered.has(id)), provisioned };
    });
  }

  async registerAtStart(accept: (workspace: string) => boolean): Promise<StoreWriteResult | null> {
    const [marked] = await this.sql`SELECT 1 FROM config_meta WHERE name = 'workspaces_registered'`;
    const withItems = marked
      ? []
      : (await this.sql<Array<{ workspace: string }>>`SELECT DISTINCT workspace FROM config_items ORDER BY workspace`).map(
          (r) => r.workspace,
        );
    const registered = new Set(await this.workspaces());
    const register = [...new Set(["default", ...withItems])].filter((ws) => !registered.has(ws) && !isReservedWorkspace(ws) && accept(ws));
    await this.sql`INSERT INTO config_meta (name, value) VALUES ('workspaces_registered', 1) ON CONFLICT (name) DO NOTHING`;
    return register.length > 0 ? this.write(WorkspaceRegistry.workspace, { register }) : null;
  }

  async close(): Promise<void> {
    await this.sql.end({ timeout: 5 });
  }
}

// Keys sort by code point ("C" collation), as SQLite's BINARY collation does.
async function keysOf(db: Db, workspace: string, type: string): Promise<string[]> {
  const rows = await db<
    Array<{ key: string }>
  >`SELECT key FROM config_items WHERE workspace = ${workspace} AND type = ${type} ORDER BY key COLLATE "C"`;
  return rows.map((r) => r.key);
}

/** to_json escapes text exactly as JSON.stringify does (quotes, backslashes, control characters). */
async function replyBytes(db: Db, workspace: string, type: string): Promise<number> {
  const [row] = await db<Array<{ bytes: number }>>`
    SELECT COALESCE(SUM(octet_length(to_json(type)::text) + octet_length(to_json(key)::text) + octet_length(to_json(value)::text) + ${REPLY_ITEM_BYTES}), 0)::bigint AS bytes
    FROM config_items WHERE workspace = ${workspace} AND type = ${type}`;
  return row!.bytes + REPLY_ENVELOPE_BYTES;
}

async function upsert(db: Db, rows: Array<{ workspace: string; type: string; key: string; value: string }>): Promise<void> {
  await db`INSERT INTO config_items ${db(rows, "workspace", "type", "key", "value")}
    ON CONFLICT (workspace, type, key) DO UPDATE SET value = excluded.value`;
}

/** Copies the template's items a workspace lacks into it; returns the types written. */
async function provisionFromTemplate(db: Db, workspace: string): Promise<string[]> {
  const rows = await db<Array<{ type: string }>>`
    INSERT INTO config_items (workspace, type, key, value)
      SELECT ${workspace}, type, key, value FROM config_items WHERE workspace = ${TEMPLATE_WORKSPACE} ORDER BY type, key
    ON CONFLICT (workspace, type, key) DO NOTHING RETURNING type`;
  return [...new Set(rows.map((r) => r.type))];
}
