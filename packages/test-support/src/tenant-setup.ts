import { randomUUID } from "node:crypto";

// A vitest setup file (see vitest.shared.ts): runs before each test file is loaded, so every test file —
// and every service process it starts, which inherits the environment — works in its own Pulsar tenant.
// Concurrent test runs on one broker, and leftovers on persistent topics, then never meet.
process.env.TOOLMESH_TENANT = `test-${randomUUID().slice(0, 12)}`;
