import { integrationConfig, postgresVitestConfig } from "../../vitest.shared.js";

// Alone: refresh intervals waited out by the clock.
export default integrationConfig(postgresVitestConfig, ["test/integration/registry.test.ts"]);
