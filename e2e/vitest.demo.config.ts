import { defineConfig, mergeConfig } from "vitest/config";
import { sharedVitestConfig } from "../vitest.shared.js";

// Whole-system demonstrations that take minutes: not part of the test suite, run on demand (see package.json).
export default mergeConfig(
  sharedVitestConfig,
  defineConfig({ test: { include: ["demo/**/*.demo.ts"], outputFile: { json: "./test-results/demo.json" } } }),
);
