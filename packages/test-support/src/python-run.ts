import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { REPO_ROOT } from "./broker.js";
import { pythonPeer } from "./python-peer.js";

export interface PythonRun<T> {
  /** Resolves once the script printed its `{"ready": true}` line (at once when it prints none). */
  ready: Promise<void>;
  /** The last JSON line it printed before exiting. */
  result: Promise<T>;
  /** Closes its stdin (scripts that serve stop on that) and waits for the result. */
  stop(): Promise<T>;
}

/**
 * Runs `packages/test-support/python/<script>` in the venv of peer `peer` (scripts/python-peers.sh).
 * The scripts speak JSON lines on stdout: an optional `{"ready": true}` once subscribed, then a result.
 * `env` adds to the test's environment (e.g. OTEL_PROPAGATORS for OpenTelemetry's Python SDK).
 */
export function runPythonScript<T>(
  peer: string,
  script: string,
  args: string[],
  { announcesReady = false, env = {} }: { announcesReady?: boolean; env?: Record<string, string> } = {},
): PythonRun<T> {
  const child = spawn(pythonPeer(peer), [resolve(REPO_ROOT, "packages/test-support/python", script), ...args], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const lines: string[] = [];
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolveReady) => (markReady = resolveReady));
  if (!announcesReady) markReady();
  createInterface({ input: child.stdout }).on("line", (line) => {
    lines.push(line);
    if (line.includes('"ready"')) markReady();
  });
  const result = new Promise<T>((resolveResult, reject) => {
    child.on("error", reject);
    child.on("close", () => {
      try {
        resolveResult(JSON.parse(lines.at(-1) ?? "") as T);
      } catch {
        reject(new Error(`${script} printed no result:\n${lines.join("\n")}\n${stderr}`));
      }
    });
  });
  // A script that fails before it is ready must not leave the caller waiting for `ready`.
  void result.finally(markReady).catch(() => {});
  return {
    ready,
    result,
    stop: () => {
      child.stdin.end();
      return result;
    },
  };
}
