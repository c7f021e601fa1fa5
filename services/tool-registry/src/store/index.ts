import { type DatabaseEnv, makeDataDir, poolSettings, reportUnreachableDatabase } from "@toolmesh/base";
import { PostgresRegistryStore } from "./postgres.js";
import { SqliteRegistryStore } from "./sqlite.js";
import type { RegistryStore } from "./types.js";

export { PostgresRegistryStore } from "./postgres.js";
export { SqliteRegistryStore } from "./sqlite.js";
export type { RegistryStore } from "./types.js";

/**
 * PostgreSQL when DATABASE_URL is set (any number of replicas; while the database cannot be reached its
 * calls fail as `unavailable`), else the SQLite file in REGISTRY_DATA_DIR.
 */
export function openRegistryStore(env: DatabaseEnv & { REGISTRY_DATA_DIR: string }): Promise<RegistryStore> {
  if (env.DATABASE_URL) {
    const opening = PostgresRegistryStore.open(env.DATABASE_URL, poolSettings(env));
    return opening.then((store) => reportUnreachableDatabase<RegistryStore>(store));
  }
  makeDataDir("REGISTRY_DATA_DIR", env.REGISTRY_DATA_DIR);
  return Promise.resolve(SqliteRegistryStore.open(env.REGISTRY_DATA_DIR));
}
