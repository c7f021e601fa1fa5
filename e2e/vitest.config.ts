import { mergeConfig } from "vitest/config";
import { integrationConfig, postgresVitestConfig } from "../vitest.shared.js";

// A process per file: these files set process-wide state (OpenTelemetry's globals, TOOLMESH_TENANT=tg for
// TrustGraph's processors), and loading modules is a small part of their time (about 10 s of 4 minutes).
// Alone: two replicas of every service under load and SIGKILL (heartbeats against a 2 s stale period),
// PostgreSQL outages of a few seconds, token lifetimes, private brokers (a JVM each), `npm run up` (it looks
// for a free port range), and the files in tenant `tg` beside TrustGraph's processors (its queues are fixed
// there, so two such files at once would answer each other's requests: claimTrustGraphTenant only waits for
// the last one to end).
export default integrationConfig(mergeConfig(postgresVitestConfig, { test: { isolate: true } }), [
  "test/replicas-postgres.test.ts",
  "test/replicas-pgbouncer.test.ts",
  "test/replicas-pgbouncer-upstream.test.ts",
  "test/postgres-outage.test.ts",
  "test/pulsar-oauth2.test.ts",
  "test/pulsar-wss.test.ts",
  "test/trustgraph-config-svc.test.ts",
  "test/trustgraph-gateway.test.ts",
  "test/trustgraph-processors.test.ts",
  "test/up-ctrl-c.test.ts",
  // Megabytes through the WebSocket API: it timed out (120 s) once beside another file.
  "test/oversized.test.ts",
]);
