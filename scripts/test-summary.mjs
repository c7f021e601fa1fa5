// Adds up the unit tier's and every package's vitest JSON report into one closing line:
// "test: N passed, N failed".
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
let passed = 0;
let failed = 0;
let skipped = 0;
// A file whose set-up failed has no failed test (its tests are skipped), but it failed: count it.
let failedFiles = 0;
// A run whose global set-up threw reports success: false with no test and no file failed: count it too.
const failedRuns = [];
// Each failed test by file and name with the first line of its error, so CI's tail says what failed.
const failures = [];
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
    const before = results.testResults.filter(
      (file) => file.status === "failed" && file.assertionResults.every((a) => a.status !== "failed"),
    ).length;
    failedFiles += before;
    for (const file of results.testResults) {
      const where = file.name.startsWith(root) ? file.name.slice(root.length) : file.name;
      for (const test of file.assertionResults) {
        if (test.status === "failed") failures.push(`${where} > ${test.fullName}: ${firstLine(test.failureMessages)}`);
      }
      if (file.status === "failed" && file.assertionResults.every((a) => a.status !== "failed")) {
        failures.push(`${where}: ${firstLine([file.message])}`);
      }
    }
    if (results.success === false && results.numFailedTests === 0 && before === 0) failedRuns.push(report.slice(root.length));
  }
}
function firstLine(messages) {
  const text = (messages ?? []).find((m) => typeof m === "string" && m.trim() !== "") ?? "no message";
  return text.trim().split("\n")[0].slice(0, 300);
}

for (const failure of failures) console.log(`FAILED ${failure}`);
const files = failedFiles ? `, ${failedFiles} test file${failedFiles === 1 ? "" : "s"} failed before its tests` : "";
const runs = failedRuns.length
  ? `, ${failedRuns.length} run${failedRuns.length === 1 ? "" : "s"} failed in set-up (${failedRuns.join(", ")})`
  : "";
console.log(`test: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}${files}${runs}`);
process.exit(failed > 0 || failedFiles > 0 || failedRuns.length > 0 || passed === 0 ? 1 : 0);
