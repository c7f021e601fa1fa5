import { defineConfig } from "vitest/config";

// The fast tier: every package's test/unit in one run, no broker, no spawned process (handlers and pure
// logic, with the in-memory transport from @toolmesh/pulsar where a bus is needed). `pnpm test:unit`
// runs it; the README's test command runs it first. Integration tests keep their own per-package config.
export default defineConfig({
  test: {
    include: ["{packages,services,bench,e2e}/*/test/unit/**/*.test.ts", "{bench,e2e}/test/unit/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    testTimeout: 10_000,
    reporters: ["default", "json"],
    outputFile: { json: "./test-results/unit/vitest.json" },
  },
});
