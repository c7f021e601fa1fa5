import { integrationConfig, sharedVitestConfig } from "../../vitest.shared.js";

// Alone: token lifetimes of a few seconds (oauth2), and private brokers started and restarted.
export default integrationConfig(sharedVitestConfig, [
  "test/integration/oauth2.test.ts",
  "test/integration/reconnect.test.ts",
  "test/integration/binary-secured.test.ts",
]);
