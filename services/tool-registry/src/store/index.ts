import { makeDataDir } from "@toolmesh/base";
import { PostgresRegistryStore } from "./postgres.js";
import { SqliteRegistryStore } from "./sqlite.js";
import type { RegistryStore } from "./types.js";

export { PostgresRegistryStore } from "./postgres.js";
export { SqliteRegistryStore } from "./sqlite.js";
export type { RegistryStore } from "./types.js";

/** PostgreSQL when DATABASE_URL is set (any number of replicas), else the SQLite file in REGISTRY_DATA_DIR. */
export function openRegistryStore(env: {
  DATABASE_URL?: string | undefined;
  DATABASE_POOL_MAX: number;
  DATABASE_CONNECT_TIMEOUT_S: number;
  REGISTRY_DATA_DIR: string;
}): Promise<RegistryStore> {
  if (env.DATABASE_URL)
    return PostgresRegistryStore.open(env.DATABASE_URL, { max: env.DATABASE_POOL_MAX, connectTimeoutS: env.DATABASE_CONNECT_TIMEOUT_S });
  makeDataDir("REGISTRY_DATA_DIR", env.REGISTRY_DATA_DIR);
  return Promise.resolve(SqliteRegistryStore.open(env.REGISTRY_DATA_DIR));
}
