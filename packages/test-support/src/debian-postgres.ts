import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { REPO_ROOT } from "./broker.js";
import { ChildServer } from "./child-server.js";
import type { PostgresServer } from "./postgres-servers.js";
import { freePort } from "./service-process.js";

const SCRIPT = resolve(REPO_ROOT, "scripts/debian-postgres.sh");

/** The PostgreSQL major version Debian 12 ships: the oldest the stores are tested on. */
export const DEBIAN_POSTGRES_MAJOR = 15;

/** A started Debian PostgreSQL, with the version it reports ("PostgreSQL 15.20 (Debian 15.20-0+deb12u1)"). */
export interface DebianPostgresServer extends PostgresServer {
  version: string;
}

/** The uid and gid of the `postgres` user, whom PostgreSQL runs as when the tests run as root. */
function postgresUser(): { uid: number; gid: number } {
  try {
    const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
    return { uid: id("-u"), gid: id("-g") };
  } catch {
    throw new Error("PostgreSQL refuses to run as root and there is no `postgres` user to run it as (useradd postgres)");
  }
}

/**
 * Debian's PostgreSQL 15 (scripts/debian-postgres.sh: installed, or Debian's package unpacked): a fresh
 * cluster in a temporary folder (initdb, SCRAM passwords), on a free port of 127.0.0.1.
 */
export async function startDebianPostgres(): Promise<DebianPostgresServer> {
  const [bin, libs] = execFileSync("bash", [SCRIPT], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).split("\n");
  const env = libs ? { LD_LIBRARY_PATH: libs } : {};
  const user = process.getuid?.() === 0 ? postgresUser() : undefined;
  const dir = mkdtempSync(join(tmpdir(), "toolmesh-pg15-"));
  chmodSync(dir, 0o755);
  if (user) chownSync(dir, user.uid, user.gid);
  const password = randomUUID();
  writeFileSync(join(dir, "password"), password, { mode: 0o644 });
  const data = join(dir, "data");
  const run = (program: string, args: string[]) =>
    execFileSync(join(bin!, program), args, {
      encoding: "utf8",
      env: { ...process.env, ...env },
      ...user,
      stdio: ["ignore", "pipe", "pipe"],
    });
  try {
    run("initdb", ["-D", data, "-U", "postgres", "--auth=scram-sha-256", `--pwfile=${join(dir, "password")}`, "-E", "UTF8", "--locale=C"]);
    const version = run("postgres", ["--version"])
      .replace(/^postgres \(PostgreSQL\) /, "PostgreSQL ")
      .trim();
    const port = await freePort();
    const server = new ChildServer({
      command: join(bin!, "postgres"),
      args: [
        "-D",
        data,
        "-p",
        String(port),
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        "unix_socket_directories=",
        "-c",
        "max_connections=300",
      ],
      env,
      ready: "database system is ready to accept connections",
      description: `${version} on 127.0.0.1:${port}`,
      ...user,
    });
    await server.spawn();
    return {
      url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
      version,
      stop: async () => {
        // SIGINT: PostgreSQL's fast shutdown (open connections are closed).
        await server.stop("SIGINT");
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
