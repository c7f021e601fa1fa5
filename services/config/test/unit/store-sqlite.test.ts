import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { SqliteConfigStore } from "../../src/store/index.js";
import { configStoreContract } from "../support/config-store-contract.js";

const dirs: string[] = [];
afterAll(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

configStoreContract("SQLite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "config-store-"));
  dirs.push(dir);
  return async () => SqliteConfigStore.open(dir);
});
