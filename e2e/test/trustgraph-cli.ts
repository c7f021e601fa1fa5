import { execFile } from "node:child_process";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { pythonPeer } from "@toolmesh/test-support";
import { expect } from "vitest";
import type { CliResult } from "./system.js";

const run = promisify(execFile);

/**
 * TrustGraph 2.11.1's own command-line tools (trustgraph-cli from PyPI, in a cached venv), run unchanged
 * against a gateway: `tg(url, "tg-show-config")` runs `tg-show-config -u <url>/`.
 */
export function trustGraphCli(): (url: string, command: string, ...args: string[]) => Promise<CliResult> {
  const bin = dirname(pythonPeer("trustgraph-cli"));
  return async (url, command, ...args) => {
    try {
      const { stdout, stderr } = await run(join(bin, command), ["-u", `${url}/`, ...args], {
        // TRUSTGRAPH_TOKEN unset: the CLI then sends no bearer (REST) and an empty token (socket auth frame).
        env: { PATH: process.env.PATH ?? "", PYTHONIOENCODING: "utf-8", LANG: "C.UTF-8" },
        timeout: 60_000,
      });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      return { code: typeof e.code === "number" ? e.code : 1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
    }
  };
}

/** A command's stdout, once it printed nothing on stderr and no `Exception` (TrustGraph's CLI exits 0 on errors). */
export function printed(result: CliResult, commandLine: string): string {
  expect(result.stderr, `${commandLine}: ${result.stderr}`).toBe("");
  expect(result.stdout, commandLine).not.toContain("Exception");
  expect(result.code).toBe(0);
  return result.stdout;
}
