import { mergeConfig } from "vitest/config";
import { postgresVitestConfig } from "../vitest.shared.js";

// A process per file: these files set process-wide state (OpenTelemetry's globals, TOOLMESH_TENANT=tg for
// TrustGraph's processors), and loading modules is a small part of their time (about 10 s of 4 minutes).
export default mergeConfig(postgresVitestConfig, { test: { isolate: true } });
