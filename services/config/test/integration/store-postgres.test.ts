import { afterAll } from "vitest";
import { TestDatabases } from "@toolmesh/test-support";
import { PostgresConfigStore } from "../../src/store/index.js";
import { configStoreContract } from "../support/config-store-contract.js";

// The same contract as on SQLite, on the real PostgreSQL server the tests start (a database per place),
// then again through a real PgBouncer in transaction mode (with DATABASE_TRANSACTION_POOLING's settings).
const direct = new TestDatabases("config");
const pooled = new TestDatabases("config", "pgbouncer");
afterAll(() => Promise.all([direct.dropAll(), pooled.dropAll()]));

for (const [name, databases] of [
  ["PostgreSQL", direct],
  ["PostgreSQL through PgBouncer (transaction pooling)", pooled],
] as const) {
  configStoreContract(name, async () => {
    const url = await databases.create();
    return () => PostgresConfigStore.open(url, { max: 4, transactionPooling: databases.transactionPooling });
  });
}
