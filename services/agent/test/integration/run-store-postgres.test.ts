import { afterAll, afterEach } from "vitest";
import { DEBIAN_POSTGRES_MAJOR, TestDatabases } from "@toolmesh/test-support";
import { PostgresRunStore, type RunStore } from "../../src/run-store/index.js";
import { runStoreContract } from "../support/run-store-contract.js";

// The same contract as on SQLite, on the real PostgreSQL server the tests start (a database per place),
// then again through a real PgBouncer in transaction mode (with DATABASE_TRANSACTION_POOLING's settings),
// and on Debian's PostgreSQL 15, the oldest release the stores are tested on.
const direct = new TestDatabases("agent");
const pooled = new TestDatabases("agent", "pgbouncer");
const older = new TestDatabases("agent", "debian15");
const opened: RunStore[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});
afterAll(() => Promise.all([direct.dropAll(), pooled.dropAll(), older.dropAll()]));

for (const [name, databases] of [
  ["PostgreSQL", direct],
  ["PostgreSQL through PgBouncer (transaction pooling)", pooled],
  [`PostgreSQL ${DEBIAN_POSTGRES_MAJOR} (Debian 12's)`, older],
] as const) {
  runStoreContract(
    name,
    async () => {
      const url = await databases.create();
      return (instanceId) => PostgresRunStore.open(url, instanceId, { max: 4, transactionPooling: databases.transactionPooling });
    },
    opened,
  );
}
