import { integrationConfig, postgresVitestConfig } from "../../vitest.shared.js";

// Alone: heartbeats against a stale period of a few seconds.
export default integrationConfig(postgresVitestConfig, ["test/integration/agent-instance.test.ts"]);
