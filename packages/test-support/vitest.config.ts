import { integrationConfig, sharedVitestConfig } from "../../vitest.shared.js";

// Every file starts a private broker (a JVM each): one at a time.
export default integrationConfig(sharedVitestConfig, [
  "test/integration/secured-broker.test.ts",
  "test/integration/oauth2-broker.test.ts",
  "test/integration/bookie-lock.test.ts",
]);
