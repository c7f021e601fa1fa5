import { afterAll } from "vitest";
import { type TestDatabase, createTestDatabase } from "@toolmesh/test-support";
import { PostgresRegistryStore } from "../../src/store/index.js";
import { registryStoreContract } from "../support/registry-store-contract.js";

// The same contract as on SQLite, on the real PostgreSQL server the tests start (a database per place).
const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const db of databases.splice(0)) await db.drop();
});

registryStoreContract("PostgreSQL", async () => {
  const db = await createTestDatabase("registry");
  databases.push(db);
  return () => PostgresRegistryStore.open(db.url, { max: 4 });
});
