import { defineConfig } from "vitest/config";

// The fast tier: every package's test/unit in one run, no broker, no spawned process (handlers and pure
// logic, with the in-memory transport from @toolmesh/pulsar where a bus is needed). `pnpm test:unit`
// runs it; the README's test command runs it first. Integration tests keep their own per-package config.
export default defineConfig({
  test: {
    include: ["{packages,services,bench,e2e}/*/test/unit/**/*.test.ts", "{bench,e2e}/test/unit/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    testTimeout: 10_000,
    // Files share each worker's module cache instead of importing every package afresh: the tier spends most
    // of its time importing (about 50 s isolated on 2 busy cores, under 10 s shared). Safe while unit tests
    // mock no modules and set no process.env (none does; the fakes live on per-file MemoryBus instances).
    isolate: false,
    reporters: ["default", "json"],
    outputFile: { json: "./test-results/unit/vitest.json" },
  },
});
