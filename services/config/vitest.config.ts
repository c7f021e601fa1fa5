import { postgresVitestConfig } from "../../vitest.shared.js";

export default postgresVitestConfig;
