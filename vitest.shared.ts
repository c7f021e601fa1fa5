import { fileURLToPath } from "node:url";
import { type ViteUserConfig, defineConfig, mergeConfig } from "vitest/config";

const supportFile = (name: string) => fileURLToPath(new URL(`./packages/test-support/dist/${name}`, import.meta.url));

// One test preset for every package's broker tier: tests against the real broker (test/integration and
// the like). Unit tests (test/unit) run apart, all packages at once, from vitest.unit.config.ts
// (`pnpm test:unit`). Integration tests talk to a real broker, so they get longer timeouts.
export const sharedVitestConfig = defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["**/node_modules/**", "test/unit/**"],
    // A package with only unit tests (schema) has nothing for this tier.
    passWithNoTests: true,
    // Each test file gets its own Pulsar tenant (TOOLMESH_TENANT), created by useBroker().
    setupFiles: [supportFile("tenant-setup.js")],
    // Starts the official Pulsar image when a Docker engine is reachable (see test-support broker-mode.ts).
    // (Run once per project below; the second finds the first's PULSAR_WEB_URL and does nothing.)
    globalSetup: [supportFile("broker-setup.js")],
    testTimeout: 30_000,
    hookTimeout: 240_000,
    fileParallelism: false,
    // A worker process runs its files one after another, each module loaded once: about a minute less
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

/**
 * A package's broker tier in two groups. First its files two at a time: on a 2-core machine most of a file's
 * time is spent waiting (on the broker, a process starting, a reply), so a second file fills it. Then the
 * files in `alone`, one at a time with nothing beside them: those whose assertions hang on timing a loaded
 * machine can stretch (token lifetimes, heartbeats against a stale period, restarts and outages of a few
 * seconds), and those that load the machine themselves (a private broker's JVM starting, many replicas
 * under load). `alone` names files relative to the package (`test/integration/x.test.ts`).
 * TOOLMESH_TEST_FILES_AT_ONCE=1 runs every file alone, as before.
 */
export function integrationConfig(base: ViteUserConfig, alone: string[] = []): ViteUserConfig {
  const atOnce = Number(process.env.TOOLMESH_TEST_FILES_AT_ONCE ?? 2);
  if (!Number.isInteger(atOnce) || atOnce < 1)
    throw new Error(`TOOLMESH_TEST_FILES_AT_ONCE='${process.env.TOOLMESH_TEST_FILES_AT_ONCE}': a whole number of files, 1 or more`);
  // Each project adds to the root's lists (include, exclude) rather than replacing them: so the root has no
  // include, and each project says which files are its own.
  const { include, ...test } = base.test ?? {};
  return mergeConfig({ ...base, test }, {
    test: {
      projects: [
        {
          extends: true,
          test: {
            name: "together",
            include,
            exclude: alone,
            fileParallelism: atOnce > 1,
            maxWorkers: atOnce,
            sequence: { groupOrder: 0 },
          },
        },
        ...(alone.length
          ? [{ extends: true, test: { name: "alone", include: alone, fileParallelism: false, maxWorkers: 1, sequence: { groupOrder: 1 } } }]
          : []),
      ],
    },
  } satisfies ViteUserConfig);
}
