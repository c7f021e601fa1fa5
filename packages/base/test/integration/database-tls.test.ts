import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TlsPostgresServer, startTlsPostgres } from "@toolmesh/test-support";
import { StartupError, connectPostgres, openDatabase } from "../../src/index.js";

// A PostgreSQL that takes TLS connections only, as managed services are set up, and DATABASE_URLs written
// the way their docs (libpq's parameters) say: sslmode, sslrootcert.
let server: TlsPostgresServer;
beforeAll(async () => {
  server = await startTlsPostgres();
}, 120_000);
afterAll(() => server?.stop());

const withParams = (params: string) => `${server.url}${params ? `?${params}` : ""}`;
const location = () => {
  const { host, pathname } = new URL(server.url);
  return `postgres://${host}${pathname}`;
};

/** Whether the connection `url` opens is encrypted, as the server sees it. */
async function encrypted(url: string): Promise<boolean> {
  const sql = connectPostgres(url, { max: 1, connectTimeoutS: 5 });
  try {
    const [row] = await sql<Array<{ ssl: boolean }>>`SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()`;
    return row!.ssl;
  } finally {
    await sql.end();
  }
}

/** The one line a service would print when its store cannot open `url`. */
async function openError(url: string): Promise<string> {
  const err = await openDatabase(url, "tls-test", [], { max: 1, connectTimeoutS: 5 }).then(
    async (sql) => {
      await sql.end();
      throw new Error(`${url} opened`);
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StartupError);
  return (err as Error).message;
}

describe("DATABASE_URL on a PostgreSQL that takes TLS only", () => {
  it("uses TLS when the URL says nothing, as libpq's default sslmode=prefer does", async () => {
    expect(await encrypted(withParams(""))).toBe(true);
  });

  it("verifies the server with the CA sslrootcert names (verify-full, verify-ca, require)", async () => {
    for (const mode of ["verify-full", "verify-ca", "require"])
      expect(await encrypted(withParams(`sslmode=${mode}&sslrootcert=${server.caFile}`)), mode).toBe(true);
    expect(await encrypted(withParams(`sslmode=verify-full&sslrootcert=${server.caFile}`).replace("127.0.0.1", "localhost"))).toBe(true);
  });

  it("refuses a server its CA did not sign, in one line saying what to set", async () => {
    for (const params of [
      `sslmode=verify-full&sslrootcert=${server.otherCaFile}`,
      "sslmode=verify-full",
      `sslmode=require&sslrootcert=${server.otherCaFile}`,
    ])
      expect(await openError(withParams(params)), params).toBe(
        `cannot open the database at DATABASE_URL="${location()}": unable to verify the first certificate (UNABLE_TO_VERIFY_LEAF_SIGNATURE); ` +
          "no CA this process trusts signed the server's certificate: name the CA with sslrootcert=/path/to/ca.pem in DATABASE_URL",
      );
  });

  it("says why sslmode=disable is refused", async () => {
    expect(await openError(withParams("sslmode=disable"))).toBe(
      `cannot open the database at DATABASE_URL="${location()}": no pg_hba.conf entry for host "127.0.0.1", user "postgres", database "postgres", no encryption (28000); ` +
        "the server takes TLS connections only: drop sslmode=disable",
    );
  });

  it("names an sslrootcert it cannot read", async () => {
    expect(() => connectPostgres(withParams("sslmode=verify-full&sslrootcert=/nonexistent/ca.pem"))).toThrow(
      new StartupError(
        "cannot read sslrootcert=/nonexistent/ca.pem named in DATABASE_URL: ENOENT: no such file or directory, open '/nonexistent/ca.pem'",
      ),
    );
  });
});
