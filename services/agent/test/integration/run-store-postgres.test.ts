import { afterAll, afterEach } from "vitest";
import { postgresRoutes } from "@toolmesh/test-support";
import { PostgresRunStore, type RunStore } from "../../src/run-store/index.js";
import { runStoreContract } from "../support/run-store-contract.js";

// The same contract as on SQLite, on the real PostgreSQL server the tests start (a database per place),
// again through a real PgBouncer in transaction mode (Debian 12's 1.18 with DATABASE_TRANSACTION_POOLING's
// settings; 1.24 with the defaults), and on Debian's PostgreSQL 15, the oldest release the stores are
// tested on.
const places = postgresRoutes("agent");
const opened: RunStore[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});
afterAll(() => places.dropAll());

for (const [name, databases] of places.routes) {
  runStoreContract(
    name,
    async () => {
      const url = await databases.create();
      return (instanceId) => PostgresRunStore.open(url, instanceId, { max: 4, transactionPooling: databases.transactionPooling });
    },
    opened,
  );
}
