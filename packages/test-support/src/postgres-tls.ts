import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PostgresServer, startEmbeddedPostgres } from "./postgres-servers.js";

/** A PostgreSQL server that takes TLS connections only, as managed services (RDS, Cloud SQL) are set up. */
export interface TlsPostgresServer extends PostgresServer {
  /** The CA that signed the server's certificate (PEM file): what a client's `sslrootcert` names. */
  caFile: string;
  /** A CA that signed nothing of this server's (PEM file): verification against it must fail. */
  otherCaFile: string;
}

const openssl = (dir: string, args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });

/** A CA (`<name>.ca.pem`, its key beside it), self-signed, 10 years. */
function makeCa(dir: string, name: string): string {
  openssl(dir, [
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "3650",
    "-subj",
    `/CN=${name} test CA`,
    "-keyout",
    `${name}.ca.key`,
    "-out",
    `${name}.ca.pem`,
  ]);
  return join(dir, `${name}.ca.pem`);
}

/**
 * An embedded PostgreSQL with `ssl=on`, a certificate for 127.0.0.1 and localhost signed by a CA of its
 * own (openssl), and a pg_hba.conf that admits `hostssl` connections only: a plain one is refused
 * (`no pg_hba.conf entry ... no encryption`). The URL names no sslmode; tests add what they try.
 */
export async function startTlsPostgres(log?: (line: string) => void): Promise<TlsPostgresServer> {
  const dir = mkdtempSync(join(tmpdir(), "toolmesh-pg-tls-"));
  chmodSync(dir, 0o755);
  const caFile = makeCa(dir, "server");
  const otherCaFile = makeCa(dir, "other");
  writeFileSync(join(dir, "san.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  openssl(dir, ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", "server.key", "-out", "server.csr"]);
  openssl(dir, [
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "server.ca.pem",
    "-CAkey",
    "server.ca.key",
    "-CAcreateserial",
    "-days",
    "3650",
    "-extfile",
    "san.ext",
    "-out",
    "server.pem",
  ]);
  const hba = join(dir, "pg_hba.conf");
  writeFileSync(hba, "hostssl all all 127.0.0.1/32 scram-sha-256\n");
  const server = await startEmbeddedPostgres({
    ...(log ? { log } : {}),
    settings: ["ssl=on", `ssl_cert_file=${join(dir, "server.pem")}`, `ssl_key_file=${join(dir, "server.key")}`, `hba_file=${hba}`],
    beforeStart: ({ runsAsPostgres }) => {
      // PostgreSQL reads its key only when the user it runs as owns it, with no access for others.
      if (runsAsPostgres) {
        const uid = Number(execFileSync("id", ["-u", "postgres"]).toString());
        const gid = Number(execFileSync("id", ["-g", "postgres"]).toString());
        for (const file of ["server.key", "server.pem", "pg_hba.conf"]) chownSync(join(dir, file), uid, gid);
      }
      chmodSync(join(dir, "server.key"), 0o600);
    },
  });
  return {
    ...server,
    caFile,
    otherCaFile,
    stop: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
