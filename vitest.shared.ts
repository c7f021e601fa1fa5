import { fileURLToPath } from "node:url";
import { defineConfig, mergeConfig } from "vitest/config";

const supportFile = (name: string) => fileURLToPath(new URL(`./packages/test-support/dist/${name}`, import.meta.url));

// One test preset for every package's broker tier: tests against the real broker (test/integration and
// the like). Unit tests (test/unit) run apart, all packages at once, from vitest.unit.config.ts
// (`pnpm test:unit`). Integration tests talk to a real broker, so they get longer timeouts, and files run
// one at a time to keep a 2-core machine's broker responsive.
export const sharedVitestConfig = defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["**/node_modules/**", "test/unit/**"],
    // A package with only unit tests (schema) has nothing for this tier.
    passWithNoTests: true,
    // Each test file gets its own Pulsar tenant (TOOLMESH_TENANT), created by useBroker().
    setupFiles: [supportFile("tenant-setup.js")],
    // Starts the official Pulsar image when a Docker engine is reachable (see test-support broker-mode.ts).
    globalSetup: [supportFile("broker-setup.js")],
    testTimeout: 30_000,
    hookTimeout: 240_000,
    fileParallelism: false,
    // One process runs a package's files one after another, each module loaded once: about a minute less
    // over the repo than a fresh process per file. So a file must leave process-wide state as it found it;
    // e2e keeps a process per file (e2e/vitest.config.ts).
    isolate: false,
    // The JSON report lets scripts/test.sh print one "N passed, N failed" line for the whole repo.
    reporters: ["default", "json"],
    outputFile: { json: "./test-results/vitest.json" },
  },
});

// The tier for packages whose tests need PostgreSQL too (config, tool-registry, agent, e2e, bench): the
// server scripts/test.sh started (TOOLMESH_TEST_DATABASE_URL), or one started for this run.
export const postgresVitestConfig = mergeConfig(
  sharedVitestConfig,
  defineConfig({ test: { globalSetup: [supportFile("postgres-setup.js")] } }),
);
