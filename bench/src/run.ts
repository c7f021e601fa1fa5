import { randomUUID } from "node:crypto";

// The run's own tenant, chosen before anything loads: services started as processes inherit it, the
// bench's in-process runtimes get it through transportEnv, and test-support's topic helpers read it.
// A fresh tenant for every run keeps it apart from tests (and other runs) on the same broker.
process.env.TOOLMESH_TENANT = `bench-${randomUUID().slice(0, 12)}`;

const { main } = await import("./bench.js");
const code = await main();
process.exitCode = code;
// Everything is closed by now; should some handle linger, it must not keep a finished bench alive.
setTimeout(() => process.exit(code), 2_000).unref();
