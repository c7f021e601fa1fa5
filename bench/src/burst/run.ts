import { randomUUID } from "node:crypto";

// The tenant must be chosen before @toolmesh/schema loads (it reads TOOLMESH_TENANT once); every process
// started from here inherits it, so the run never meets tests on the same broker.
process.env.TOOLMESH_TENANT = `burst-${randomUUID().slice(0, 12)}`;

const { runBurst } = await import("./burst.js");
process.exitCode = await runBurst();
setTimeout(() => process.exit(process.exitCode), 2_000).unref();
