import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { REPO_ROOT } from "./broker.js";

const SCRIPT = resolve(REPO_ROOT, "scripts/go-peers.sh");

/**
 * The binary of a Go peer (the module `packages/test-support/go/<name>`), built on first use by
 * scripts/go-peers.sh and cached across runs. The README's test command builds them all before the tests
 * start, so this is normally just a lookup.
 */
export function goPeer(name: string): string {
  const output = execFileSync("bash", [SCRIPT, name], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  const binary = output.trim().split(" ").slice(1).join(" ");
  if (!binary) throw new Error(`scripts/go-peers.sh ${name} printed no binary`);
  return binary;
}
