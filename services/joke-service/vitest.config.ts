import { integrationConfig, sharedVitestConfig } from "../../vitest.shared.js";

export default integrationConfig(sharedVitestConfig);
