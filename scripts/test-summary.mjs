// Adds up the unit tier's and every package's vitest JSON report into one closing line:
// "test: N passed, N failed".
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
let passed = 0;
let failed = 0;
let skipped = 0;
const reports = [join(root, "test-results", "unit", "vitest.json")];
for (const group of ["packages", "services", "bench", "e2e"]) {
  const dir = join(root, group);
  if (!existsSync(dir)) continue;
  const packages = group === "bench" || group === "e2e" ? [""] : readdirSync(dir);
  for (const pkg of packages) {
    reports.push(join(dir, pkg, "test-results", "vitest.json"));
  }
}
for (const report of reports) {
  if (existsSync(report)) {
    const results = JSON.parse(readFileSync(report, "utf8"));
    passed += results.numPassedTests;
    failed += results.numFailedTests;
    skipped += results.numPendingTests + results.numTodoTests;
  }
}
console.log(`test: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
