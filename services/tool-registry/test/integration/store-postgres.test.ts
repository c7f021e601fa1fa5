import { afterAll } from "vitest";
import { TestDatabases } from "@toolmesh/test-support";
import { PostgresRegistryStore } from "../../src/store/index.js";
import { registryStoreContract } from "../support/registry-store-contract.js";

// The same contract as on SQLite, on the real PostgreSQL server the tests start (a database per place),
// then again through a real PgBouncer in transaction mode (with DATABASE_TRANSACTION_POOLING's settings).
const direct = new TestDatabases("registry");
const pooled = new TestDatabases("registry", "pgbouncer");
afterAll(() => Promise.all([direct.dropAll(), pooled.dropAll()]));

for (const [name, databases] of [
  ["PostgreSQL", direct],
  ["PostgreSQL through PgBouncer (transaction pooling)", pooled],
] as const) {
  registryStoreContract(name, async () => {
    const url = await databases.create();
    return () => PostgresRegistryStore.open(url, { max: 4, transactionPooling: databases.transactionPooling });
  });
}
