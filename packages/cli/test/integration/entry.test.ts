import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

// The installed `tg` (bin/tg.js, which runs the built dist/main.js), as a shell runs it.
const PACKAGE_DIR = resolve(import.meta.dirname, "../..");

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `bin` with `args`; `closeStdout` closes the reading end of its stdout before it writes anything. */
function runBin(bin: string, args: string[], closeStdout = false): Promise<Exit> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    if (closeStdout) child.stdout.destroy();
    else child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

const scratch: string[] = [];
afterAll(() => scratch.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe("the tg entry (bin/tg.js)", () => {
  it("runs the built command", async () => {
    const result = await runBin(join(PACKAGE_DIR, "bin/tg.js"), ["--help"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toMatch(/^Usage: tg /);
  });

  it("stops quietly when the reader of its output has gone (`tg ... | head -1`)", async () => {
    const result = await runBin(join(PACKAGE_DIR, "bin/tg.js"), ["--help"], true);
    expect(result).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  it("says how to build it when dist/ is missing, in one line and exit 1", async () => {
    // A copy of the package's bin/ with no dist/ beside it: a fresh clone before `npm run build`.
    const dir = mkdtempSync(join(tmpdir(), "tg-unbuilt-"));
    scratch.push(dir);
    cpSync(join(PACKAGE_DIR, "bin"), join(dir, "bin"), { recursive: true });
    cpSync(join(PACKAGE_DIR, "package.json"), join(dir, "package.json"));
    const result = await runBin(join(dir, "bin/tg.js"), ["--help"]);
    expect(result).toEqual({
      code: 1,
      stdout: "",
      stderr: "tg: not built yet (no packages/cli/dist/main.js): run `npm run build` at the repo root first\n",
    });
  });
});
