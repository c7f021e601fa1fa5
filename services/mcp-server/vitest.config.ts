import { integrationConfig, sharedVitestConfig } from "../../vitest.shared.js";

// Alone: mcp-server restarted under its clients, and SIGTERM against its shutdown timeout.
export default integrationConfig(sharedVitestConfig, ["test/integration/restart.test.ts"]);
