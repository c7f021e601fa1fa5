import { readFileSync } from "node:fs";
import { basename } from "node:path";

/**
 * Summarises a V8 .cpuprofile (node --cpu-prof): self time per function and per area (our packages,
 * each dependency, node internals, GC), as shares of the busy (non-idle) time.
 * Usage: node dist/profile-summary.js <file.cpuprofile> [top=25]
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

function area(url: string, fn: string): string {
  if (!url) return fn.startsWith("(") ? fn : "(native)";
  const toolmesh = /\/(packages|services)\/([^/]+)\/dist\//.exec(url);
  if (toolmesh && !url.includes("node_modules")) return `toolmesh ${toolmesh[1] === "packages" ? "@toolmesh/" : ""}${toolmesh[2]}`;
  if (url.includes("/bench/dist/")) return "bench harness";
  const dep =
    /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url) ?? /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (dep) return dep[1]!;
  if (url.startsWith("node:")) return `node:${url.slice(5).split("/")[0]}`;
  return url;
}

const file = process.argv[2];
if (!file) {
  console.error("usage: node dist/profile-summary.js <file.cpuprofile> [top]");
  process.exit(2);
}
const top = Number(process.argv[3] ?? 25);
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

const fns = new Map<string, number>();
const areas = new Map<string, number>();
let idle = 0;
let total = 0;
for (const [id, us] of selfUs) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  total += us;
  if (functionName === "(idle)") {
    idle += us;
    continue;
  }
  const where = url
    ? `${url.replace(/^.*\/(node_modules\/\.pnpm\/[^/]+\/node_modules\/|packages\/|services\/)/, "")}:${lineNumber + 1}`
    : "";
  const key = `${functionName || "(anonymous)"} ${where}`.trim();
  fns.set(key, (fns.get(key) ?? 0) + us);
  const a = area(url, functionName);
  areas.set(a, (areas.get(a) ?? 0) + us);
}
const busy = total - idle;
const pct = (us: number) => `${((us / busy) * 100).toFixed(1).padStart(5)}%`;
const ms = (us: number) => `${(us / 1000).toFixed(0).padStart(6)} ms`;
console.log(`${basename(file)}: ${ms(total)} sampled, ${ms(busy)} busy (${((busy / total) * 100).toFixed(0)}%), idle ${ms(idle)}`);
console.log("\nself time by area (share of busy time)");
for (const [a, us] of [...areas].sort((x, y) => y[1] - x[1]).slice(0, 20)) console.log(`${pct(us)} ${ms(us)}  ${a}`);
console.log(`\ntop ${top} functions by self time`);
for (const [f, us] of [...fns].sort((x, y) => y[1] - x[1]).slice(0, top)) console.log(`${pct(us)} ${ms(us)}  ${f}`);
