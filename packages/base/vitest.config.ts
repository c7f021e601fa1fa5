import { integrationConfig, sharedVitestConfig } from "../../vitest.shared.js";

// Alone: a database going away and coming back, and load shedding measured against a busy machine.
export default integrationConfig(sharedVitestConfig, ["test/integration/database-reconnect.test.ts", "test/integration/overload.test.ts"]);
