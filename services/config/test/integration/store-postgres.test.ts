import { afterAll } from "vitest";
import { postgresRoutes } from "@toolmesh/test-support";
import { PostgresConfigStore } from "../../src/store/index.js";
import { configStoreContract } from "../support/config-store-contract.js";

// The same contract as on SQLite, on the real PostgreSQL server the tests start (a database per place),
// again through a real PgBouncer in transaction mode (Debian 12's 1.18 with DATABASE_TRANSACTION_POOLING's
// settings; 1.24 with the defaults), and on Debian's PostgreSQL 15, the oldest release the stores are
// tested on.
const places = postgresRoutes("config");
afterAll(() => places.dropAll());

for (const [name, databases] of places.routes) {
  configStoreContract(name, async () => {
    const url = await databases.create();
    return () => PostgresConfigStore.open(url, { max: 4, transactionPooling: databases.transactionPooling });
  });
}
