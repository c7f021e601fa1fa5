import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const tenantSetup = fileURLToPath(new URL("./packages/test-support/dist/tenant-setup.js", import.meta.url));

// One test preset for every package. Unit tests live in test/unit, tests against the real broker in
// test/integration; both run by default. Integration tests talk to a real broker, so they get longer
// timeouts, and files run one at a time to keep a 2-core machine's broker responsive.
export const sharedVitestConfig = defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Each test file gets its own Pulsar tenant (TOOLMESH_TENANT), created by useBroker().
    setupFiles: [tenantSetup],
    testTimeout: 30_000,
    hookTimeout: 240_000,
    fileParallelism: false,
    // The JSON report lets scripts/test.sh print one "N passed, N failed" line for the whole repo.
    reporters: ["default", "json"],
    outputFile: { json: "./test-results/vitest.json" },
  },
});
