import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { SqliteRegistryStore } from "../../src/store/index.js";
import { registryStoreContract } from "../support/registry-store-contract.js";

const dirs: string[] = [];
afterAll(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

registryStoreContract("SQLite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "registry-store-"));
  dirs.push(dir);
  return async () => SqliteRegistryStore.open(dir);
});
