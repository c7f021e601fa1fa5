import { afterAll } from "vitest";
import { type TestDatabase, createTestDatabase } from "@toolmesh/test-support";
import { PostgresConfigStore } from "../../src/store/index.js";
import { configStoreContract } from "../support/config-store-contract.js";

// The same contract as on SQLite, on the real PostgreSQL server the tests start (a database per place).
const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const db of databases.splice(0)) await db.drop();
});

configStoreContract("PostgreSQL", async () => {
  const db = await createTestDatabase("config");
  databases.push(db);
  return () => PostgresConfigStore.open(db.url, { max: 4 });
});
