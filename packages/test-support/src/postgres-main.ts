import { writeFileSync } from "node:fs";
import { EnvError } from "@toolmesh/schema";
import { TestPostgres } from "./postgres.js";

// scripts/test.sh's PostgreSQL: `node postgres-main.js <url-file>` starts a server (embedded or a container,
// see choosePostgres()), prints one line saying which and why, writes its URL to <url-file> once it accepts
// connections, and stops it (removing its files or container) on SIGTERM or SIGINT. A failure to start is
// one line on stderr and exit 1.
const urlFile = process.argv[2];
if (!urlFile) throw new Error("usage: postgres-main.js <file to write the server's URL to>");
let server: TestPostgres;
try {
  server = await TestPostgres.start();
} catch (error) {
  const message =
    error instanceof EnvError
      ? `invalid environment: ${error.problems.join("; ")}`
      : String(error instanceof Error ? error.message : error);
  console.error(`test PostgreSQL: ${message}`);
  process.exit(1);
}
console.log(`test PostgreSQL: ${server.choice.mode}, ${server.redactedUrl} (${server.choice.why})`);
writeFileSync(urlFile, `${server.url}\n`);
const stop = () => void server.stop().finally(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
