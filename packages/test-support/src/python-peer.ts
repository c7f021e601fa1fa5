import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { REPO_ROOT } from "./broker.js";

const SCRIPT = resolve(REPO_ROOT, "scripts/python-peers.sh");

/**
 * The Python interpreter of a peer's virtual environment (`packages/test-support/python/<name>.txt`),
 * created on first use by scripts/python-peers.sh and cached across runs. The README's test command
 * creates them all before the tests start, so this is normally just a lookup.
 */
export function pythonPeer(name: string): string {
  const output = execFileSync("bash", [SCRIPT, name], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  const venv = output.trim().split(" ").slice(1).join(" ");
  if (!venv) throw new Error(`scripts/python-peers.sh ${name} printed no venv`);
  return resolve(venv, "bin/python");
}
