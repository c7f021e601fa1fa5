import { mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { StartupError } from "./startup-error.js";

/**
 * Creates `path` and any missing parents, like `mkdirSync(path, { recursive: true })`, which cannot be
 * used for a folder an operator names: on Node 20 it spins forever, at full CPU and deaf to SIGTERM, when
 * the filesystem answers mkdir with ENOENT although the parent exists (procfs: `/proc/x`). Here each
 * folder is made once after its parent, and any other answer is thrown.
 */
export function makeFolder(path: string): void {
  createFolder(resolve(path), false);
}

function createFolder(path: string, parentMade: boolean): void {
  try {
    mkdirSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // Already there (or made meanwhile by another process): fine when it is a folder.
    if (code === "EEXIST" && statSync(path).isDirectory()) return;
    const parent = dirname(path);
    if (code !== "ENOENT" || parentMade || parent === path) throw err;
    createFolder(parent, false);
    createFolder(path, true);
  }
}

/**
 * The folder a service keeps its SQLite file in, named by `variable` (e.g. CONFIG_DATA_DIR): made if
 * missing, or a StartupError naming the variable (startService prints it as one line and exits 1).
 */
export function makeDataDir(variable: string, dir: string): void {
  try {
    makeFolder(dir);
  } catch (err) {
    throw new StartupError(`cannot create the data folder ${variable}=${JSON.stringify(dir)}: ${(err as Error).message}`);
  }
}
