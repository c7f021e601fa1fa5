import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectPostgres } from "@toolmesh/base";
import { REPO_ROOT, ServiceProcess, type TlsPostgresServer, brokerEnv, startTlsPostgres, useBroker } from "@toolmesh/test-support";

// The stateful services against a PostgreSQL that takes TLS connections only (as RDS, Cloud SQL and Azure
// are set up), with DATABASE_URL written as their docs say: libpq's sslmode and sslrootcert.
let server: TlsPostgresServer;
beforeAll(async () => {
  server = await startTlsPostgres();
}, 120_000);
afterAll(() => server?.stop());

const stateful = ["config", "tool-registry", "agent"];

describe("config, tool-registry and agent on a TLS-only PostgreSQL", () => {
  // /healthz answers once the service's store is open (tool-registry is ready only once config answers,
  // and no config runs here); its tables are then on the server, made over TLS.
  it.each(stateful)("%s starts with sslmode=verify-full&sslrootcert=<the server's CA> and makes its tables", async (service) => {
    const broker = await useBroker();
    const started = await ServiceProcess.start({
      service,
      env: { ...brokerEnv(broker), DATABASE_URL: `${server.url}?sslmode=verify-full&sslrootcert=${server.caFile}` },
      waitFor: "healthy",
    });
    await started.stop();
    const sql = connectPostgres(`${server.url}?sslmode=verify-full&sslrootcert=${server.caFile}`, { max: 1 });
    const rows = await sql<Array<{ version: number }>>`SELECT version FROM toolmesh_migrations WHERE component = ${service}`;
    await sql.end();
    expect(rows.length).toBeGreaterThan(0);
  });

  it("config prints one line naming the certificate problem and exits 1 when the CA does not match", async () => {
    const broker = await useBroker();
    const result = spawnSync(process.execPath, [resolve(REPO_ROOT, "services/config/dist/main.js")], {
      env: {
        PATH: process.env.PATH,
        ...brokerEnv(broker),
        HTTP_PORT: "0",
        DATABASE_URL: `${server.url}?sslmode=verify-full&sslrootcert=${server.otherCaFile}`,
        DATABASE_CONNECT_TIMEOUT_S: "5",
      },
      encoding: "utf8",
      timeout: 30_000,
    });
    const { host } = new URL(server.url);
    expect(result.status).toBe(1);
    expect(result.stderr.trimEnd().split("\n")).toEqual([
      `config: cannot open the database at DATABASE_URL="postgres://${host}/postgres": unable to verify the first certificate (UNABLE_TO_VERIFY_LEAF_SIGNATURE); ` +
        "no CA this process trusts signed the server's certificate: name the CA with sslrootcert=/path/to/ca.pem in DATABASE_URL",
    ]);
  });
});
