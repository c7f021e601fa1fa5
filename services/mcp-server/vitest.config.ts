import { sharedVitestConfig } from "../../vitest.shared.js";

export default sharedVitestConfig;
