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
  port: number;
  version: string;
  /** Kills it at once, as a crash would (its folder goes too). */
  kill(): Promise<void>;
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

/** The programs of Debian's PostgreSQL (scripts/debian-postgres.sh), and whom they run as. */
function debianPrograms(): { bin: string; env: Record<string, string>; user?: { uid: number; gid: number } } {
  const [bin, libs] = execFileSync("bash", [SCRIPT], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).split("\n");
  return { bin: bin!, env: libs ? { LD_LIBRARY_PATH: libs } : {}, ...(process.getuid?.() === 0 ? { user: postgresUser() } : {}) };
}

/** A folder of its own for one server, which its user can write. */
function serverFolder(user: { uid: number; gid: number } | undefined): string {
  const dir = mkdtempSync(join(tmpdir(), "toolmesh-pg15-"));
  chmodSync(dir, 0o755);
  if (user) chownSync(dir, user.uid, user.gid);
  return dir;
}

/** Starts the cluster in `dir`/data on a free port; the server is stopped and the folder removed by stop(). */
async function launch(
  programs: ReturnType<typeof debianPrograms>,
  dir: string,
  password: string,
  settings: string[],
): Promise<DebianPostgresServer> {
  const { bin, env, user } = programs;
  const version = execFileSync(join(bin, "postgres"), ["--version"], { encoding: "utf8", env: { ...process.env, ...env } })
    .replace(/^postgres \(PostgreSQL\) /, "PostgreSQL ")
    .trim();
  const port = await freePort();
  const settingArgs = ["listen_addresses=127.0.0.1", "unix_socket_directories=", "max_connections=300", ...settings].flatMap((s) => [
    "-c",
    s,
  ]);
  const server = new ChildServer({
    command: join(bin, "postgres"),
    args: ["-D", join(dir, "data"), "-p", String(port), ...settingArgs],
    env,
    // A primary says it accepts connections; a standby that it accepts read-only ones.
    ready: "ready to accept",
    description: `${version} on 127.0.0.1:${port}`,
    ...user,
  });
  try {
    await server.spawn();
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    port,
    version,
    stop: async () => {
      // SIGINT: PostgreSQL's fast shutdown (open connections are closed).
      await server.stop("SIGINT");
      rmSync(dir, { recursive: true, force: true });
    },
    kill: async () => {
      await server.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Debian's PostgreSQL 15 (scripts/debian-postgres.sh: installed, or Debian's package unpacked): a fresh
 * cluster in a temporary folder (initdb, SCRAM passwords; replication allowed from 127.0.0.1), on a free
 * port of 127.0.0.1. `settings` are more `name=value` server settings.
 */
export async function startDebianPostgres(settings: string[] = []): Promise<DebianPostgresServer> {
  const programs = debianPrograms();
  const dir = serverFolder(programs.user);
  const password = randomUUID();
  writeFileSync(join(dir, "password"), password, { mode: 0o644 });
  try {
    execFileSync(
      join(programs.bin, "initdb"),
      ["-D", join(dir, "data"), "-U", "postgres", "--auth=scram-sha-256", `--pwfile=${join(dir, "password")}`, "-E", "UTF8", "--locale=C"],
      { env: { ...process.env, ...programs.env }, ...programs.user, stdio: "ignore" },
    );
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return launch(programs, dir, password, settings);
}

/**
 * A streaming standby of `primary` (a copy taken with pg_basebackup, told to follow it), on a port of its
 * own: read-only until promoted (`SELECT pg_promote()`). Same password as the primary.
 */
export async function startDebianStandby(primary: DebianPostgresServer): Promise<DebianPostgresServer> {
  const programs = debianPrograms();
  const dir = serverFolder(programs.user);
  const { password } = new URL(primary.url);
  try {
    execFileSync(
      join(programs.bin, "pg_basebackup"),
      ["-d", `host=127.0.0.1 port=${primary.port} user=postgres password=${password}`, "-D", join(dir, "data"), "-R", "-X", "stream"],
      { env: { ...process.env, ...programs.env }, ...programs.user, stdio: ["ignore", "ignore", "pipe"] },
    );
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return launch(programs, dir, decodeURIComponent(password), []);
}
