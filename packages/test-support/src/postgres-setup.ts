import { TEST_DATABASE_URL_VAR, TestPostgres } from "./postgres.js";

// vitest globalSetup for the packages whose tests need PostgreSQL (their vitest.config.ts adds it):
// scripts/test.sh starts one server for the whole run and passes its URL in TOOLMESH_TEST_DATABASE_URL;
// when a package's tests run on their own without it, one is started here for the run (embedded or a
// container, see choosePostgres()) and stopped after.
let started: TestPostgres | undefined;

export async function setup(): Promise<void> {
  if (process.env[TEST_DATABASE_URL_VAR]) return;
  started = await TestPostgres.start();
  console.log(`test PostgreSQL: ${started.choice.mode} (${started.choice.why})`);
  process.env[TEST_DATABASE_URL_VAR] = started.url;
}

export async function teardown(): Promise<void> {
  await started?.stop();
}
