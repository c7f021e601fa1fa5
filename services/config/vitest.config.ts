import { integrationConfig, postgresVitestConfig } from "../../vitest.shared.js";

// Alone: replicas restarted under load, and PostgreSQL going away and coming back.
export default integrationConfig(postgresVitestConfig, [
  "test/integration/rolling-restart-python.test.ts",
  "test/integration/config-outage.test.ts",
  "test/integration/store-failover.test.ts",
]);
