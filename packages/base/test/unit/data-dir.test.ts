import { existsSync, mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { StartupError, makeDataDir, makeFolder } from "../../src/index.js";

const scratch = () => mkdtempSync(join(tmpdir(), "toolmesh-data-dir-"));

describe("makeFolder", () => {
  it("makes a folder and its missing parents", () => {
    const path = join(scratch(), "a", "b", "c");
    makeFolder(path);
    expect(statSync(path).isDirectory()).toBe(true);
  });

  it("leaves a folder that is already there", () => {
    const path = scratch();
    makeFolder(path);
    makeFolder(`${path}/`);
    expect(statSync(path).isDirectory()).toBe(true);
  });

  it("throws when a file is in the way, as the folder or as a parent", () => {
    const file = join(scratch(), "file");
    writeFileSync(file, "x");
    expect(() => makeFolder(file)).toThrow(/EEXIST/);
    expect(() => makeFolder(join(file, "below"))).toThrow(/ENOTDIR/);
  });

  // Node 20's recursive mkdirSync never returns here (procfs answers ENOENT with the parent in place):
  // the test times out if makeFolder loops the same way.
  it.runIf(existsSync("/proc/self"))("throws ENOENT under /proc instead of spinning", () => {
    expect(() => makeFolder("/proc/toolmesh-x/y")).toThrow(/ENOENT: no such file or directory, mkdir '\/proc\/toolmesh-x'/);
  });
});

describe("makeDataDir", () => {
  it("names the variable and the reason in a StartupError", () => {
    const file = join(scratch(), "file");
    writeFileSync(file, "x");
    const attempt = () => makeDataDir("CONFIG_DATA_DIR", join(file, "config"));
    expect(attempt).toThrow(StartupError);
    expect(attempt).toThrow(
      `cannot create the data folder CONFIG_DATA_DIR="${file}/config": ENOTDIR: not a directory, mkdir '${file}/config'`,
    );
  });
});
