import { type DatabaseEnv, makeDataDir, poolSettings, reportUnreachableDatabase } from "@toolmesh/base";
import { PostgresConfigStore } from "./postgres.js";
import { SqliteConfigStore } from "./sqlite.js";
import type { ConfigStore } from "./types.js";

export { PostgresConfigStore } from "./postgres.js";
export { SqliteConfigStore } from "./sqlite.js";
export { type ConfigStore, type StoreChange, type StoreWriteResult, TypeOverLimit } from "./types.js";

/**
 * PostgreSQL when DATABASE_URL is set (any number of replicas; while the database cannot be reached its
 * calls fail as `unavailable`), else the SQLite file in CONFIG_DATA_DIR.
 */
export function openConfigStore(env: DatabaseEnv & { CONFIG_DATA_DIR: string }): Promise<ConfigStore> {
  if (env.DATABASE_URL) {
    const opening = PostgresConfigStore.open(env.DATABASE_URL, poolSettings(env));
    return opening.then((store) => reportUnreachableDatabase<ConfigStore>(store));
  }
  makeDataDir("CONFIG_DATA_DIR", env.CONFIG_DATA_DIR);
  return Promise.resolve(SqliteConfigStore.open(env.CONFIG_DATA_DIR));
}
