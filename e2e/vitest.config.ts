import { mergeConfig } from "vitest/config";
import { postgresVitestConfig } from "../vitest.shared.js";

// A process per file: several files register OpenTelemetry's global tracer provider, which a later file
// in the same process could not replace.
export default mergeConfig(postgresVitestConfig, { test: { isolate: true } });
