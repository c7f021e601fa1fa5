import { writeFileSync } from "node:fs";
import { TestPostgres } from "./postgres.js";

// scripts/test.sh's PostgreSQL: `node postgres-main.js <url-file>` starts a server, writes its URL to
// <url-file> once it accepts connections, and stops it (removing its files) on SIGTERM or SIGINT.
const urlFile = process.argv[2];
if (!urlFile) throw new Error("usage: postgres-main.js <file to write the server's URL to>");
const server = await TestPostgres.start();
writeFileSync(urlFile, `${server.url}\n`);
const stop = () => void server.stop().finally(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
