import { type DatabaseEnv, makeDataDir, poolSettings, reportUnreachableDatabase } from "@toolmesh/base";
import { PostgresRunStore } from "./postgres.js";
import { SqliteRunStore } from "./sqlite.js";
import type { RunStore } from "./types.js";

export { PostgresRunStore } from "./postgres.js";
export { SqliteRunStore } from "./sqlite.js";
export { type NewRun, type NewStep, type OrphanedRun, type RunStore, instanceGoneReason } from "./types.js";

/**
 * PostgreSQL when DATABASE_URL is set (any number of replicas; while the database cannot be reached its
 * calls fail as `unavailable`), else the SQLite file in AGENT_DATA_DIR.
 */
export function openRunStore(env: DatabaseEnv & { AGENT_DATA_DIR: string }, instanceId: string): Promise<RunStore> {
  if (env.DATABASE_URL) {
    const opening = PostgresRunStore.open(env.DATABASE_URL, instanceId, poolSettings(env));
    return opening.then((store) => reportUnreachableDatabase<RunStore>(store));
  }
  makeDataDir("AGENT_DATA_DIR", env.AGENT_DATA_DIR);
  return Promise.resolve(SqliteRunStore.open(env.AGENT_DATA_DIR, instanceId));
}
