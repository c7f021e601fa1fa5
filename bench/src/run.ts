import { randomUUID } from "node:crypto";

// Every toolmesh module reads TOOLMESH_TENANT once, when @toolmesh/schema loads; so the tenant is chosen
// before anything imports it, and the bench is loaded only afterwards. Services started as processes
// inherit it. A fresh tenant for every run keeps it apart from tests (and other runs) on the same broker.
process.env.TOOLMESH_TENANT = `bench-${randomUUID().slice(0, 12)}`;

const { main } = await import("./bench.js");
const code = await main();
process.exitCode = code;
// Everything is closed by now; should some handle linger, it must not keep a finished bench alive.
setTimeout(() => process.exit(code), 2_000).unref();
