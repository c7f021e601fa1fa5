import { afterAll, afterEach } from "vitest";
import { type TestDatabase, createTestDatabase } from "@toolmesh/test-support";
import { PostgresRunStore, type RunStore } from "../../src/run-store/index.js";
import { runStoreContract } from "../support/run-store-contract.js";

// The same contract as on SQLite, on the real PostgreSQL server the tests start (a database per place).
const databases: TestDatabase[] = [];
const opened: RunStore[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});
afterAll(async () => {
  for (const db of databases.splice(0)) await db.drop();
});

runStoreContract(
  "PostgreSQL",
  async () => {
    const db = await createTestDatabase("agent");
    databases.push(db);
    return (instanceId) => PostgresRunStore.open(db.url, instanceId, { max: 4 });
  },
  opened,
);
