import { afterAll } from "vitest";
import { DEBIAN_POSTGRES_MAJOR, TestDatabases } from "@toolmesh/test-support";
import { PostgresConfigStore } from "../../src/store/index.js";
import { configStoreContract } from "../support/config-store-contract.js";

// The same contract as on SQLite, on the real PostgreSQL server the tests start (a database per place),
// then again through a real PgBouncer in transaction mode (with DATABASE_TRANSACTION_POOLING's settings),
// and on Debian's PostgreSQL 15, the oldest release the stores are tested on.
const direct = new TestDatabases("config");
const pooled = new TestDatabases("config", "pgbouncer");
const older = new TestDatabases("config", "debian15");
afterAll(() => Promise.all([direct.dropAll(), pooled.dropAll(), older.dropAll()]));

for (const [name, databases] of [
  ["PostgreSQL", direct],
  ["PostgreSQL through PgBouncer (transaction pooling)", pooled],
  [`PostgreSQL ${DEBIAN_POSTGRES_MAJOR} (Debian 12's)`, older],
] as const) {
  configStoreContract(name, async () => {
    const url = await databases.create();
    return () => PostgresConfigStore.open(url, { max: 4, transactionPooling: databases.transactionPooling });
  });
}
