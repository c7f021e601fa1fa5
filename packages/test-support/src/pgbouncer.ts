import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import postgres from "postgres";
import { REPO_ROOT } from "./broker.js";
import { ChildServer } from "./child-server.js";
import { freePort } from "./service-process.js";

/**
 * Which PgBouncer: `debian` is Debian 12's 1.18 (scripts/pgbouncer.sh: installed, or the package unpacked),
 * older than the 1.21 that keeps prepared statements across server connections; `upstream` is 1.24.1,
 * built once from source (scripts/pgbouncer-upstream.sh), which does so by default.
 */
export type PgBouncerRelease = "debian" | "upstream";
const SCRIPTS: Record<PgBouncerRelease, string> = {
  debian: resolve(REPO_ROOT, "scripts/pgbouncer.sh"),
  upstream: resolve(REPO_ROOT, "scripts/pgbouncer-upstream.sh"),
};

export interface PgBouncerOptions {
  /** `transaction` (the default here, as operators run it in front of many replicas) or `session`. */
  poolMode?: "transaction" | "session";
  /** Server connections per database and user (`default_pool_size`): at most this many transactions at once. */
  poolSize?: number;
  /** Default `debian`. */
  release?: PgBouncerRelease;
}

/** One row of PgBouncer's `SHOW POOLS` for a database: client and server connections now. */
export interface PgBouncerPool {
  database: string;
  clientsActive: number;
  clientsWaiting: number;
  serversActive: number;
  serversIdle: number;
}

/**
 * A real PgBouncer (Debian's or a current upstream release: PgBouncerRelease) in front of a PostgreSQL server, as a
 * child process on a port of its own. Every database of the server is reachable through it, with the server
 * URL's user and password (SCRAM, as PostgreSQL's own). The admin console (`SHOW POOLS`) is open to that user.
 */
export class PgBouncer {
  private constructor(
    private readonly server: ChildServer,
    private readonly folder: string,
    private readonly serverUrl: URL,
    /** The port it listens on (127.0.0.1). */
    readonly port: number,
    /** What `pgbouncer --version` printed first ("PgBouncer 1.18.0"). */
    readonly version: string,
  ) {}

  static async start(serverUrl: string, options: PgBouncerOptions = {}): Promise<PgBouncer> {
    const binary = execFileSync("bash", [SCRIPTS[options.release ?? "debian"]], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    }).trim();
    const version = execFileSync(binary, ["--version"], { encoding: "utf8" }).split("\n")[0]!.trim();
    const target = new URL(serverUrl);
    const user = decodeURIComponent(target.username);
    const port = await freePort();
    // PgBouncer refuses to run as root; as root it is told to switch to `nobody`, who must read these files.
    const folder = mkdtempSync(join(tmpdir(), "toolmesh-pgbouncer-"));
    chmodSync(folder, 0o755);
    const quoted = (text: string) => `"${text.replaceAll('"', '""')}"`;
    writeFileSync(join(folder, "users.txt"), `${quoted(user)} ${quoted(decodeURIComponent(target.password))}\n`, { mode: 0o644 });
    const ini = [
      "[databases]",
      `* = host=${target.hostname} port=${target.port || 5432}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = scram-sha-256",
      `auth_file = ${join(folder, "users.txt")}`,
      `admin_users = ${user}`,
      `pool_mode = ${options.poolMode ?? "transaction"}`,
      `default_pool_size = ${options.poolSize ?? 20}`,
      "max_client_conn = 1000",
      // Its output is kept for failure messages: warnings and errors, not a line per connection.
      "log_connections = 0",
      "log_disconnections = 0",
      "",
    ].join("\n");
    writeFileSync(join(folder, "pgbouncer.ini"), ini, { mode: 0o644 });
    const server = new ChildServer({
      command: binary,
      args: [...(process.getuid?.() === 0 ? ["-u", "nobody"] : []), join(folder, "pgbouncer.ini")],
      ready: "process up",
      description: `PgBouncer on 127.0.0.1:${port}`,
    });
    try {
      await server.spawn();
    } catch (err) {
      rmSync(folder, { recursive: true, force: true });
      throw err;
    }
    return new PgBouncer(server, folder, target, port, version);
  }

  /** `url` (a database of the server behind it) as a URL that goes through this PgBouncer. */
  through(url: string): string {
    const routed = new URL(url);
    routed.hostname = "127.0.0.1";
    routed.port = String(this.port);
    return routed.toString();
  }

  /** What it printed (the last 8 kB), for failure messages. */
  get logs(): string {
    return this.server.logs;
  }

  /** `SHOW POOLS` on the admin console, for one database. */
  async pools(database: string): Promise<PgBouncerPool | undefined> {
    const admin = new URL(this.through(this.serverUrl.toString()));
    admin.pathname = "/pgbouncer";
    // The console speaks the simple query protocol only, and knows no types to fetch.
    const sql = postgres(admin.toString(), { max: 1, prepare: false, fetch_types: false, onnotice: () => undefined });
    try {
      const rows = await sql.unsafe<Array<Record<string, string>>>("SHOW POOLS");
      const row = rows.find((r) => r.database === database);
      return (
        row && {
          database,
          clientsActive: Number(row.cl_active),
          clientsWaiting: Number(row.cl_waiting),
          serversActive: Number(row.sv_active),
          serversIdle: Number(row.sv_idle),
        }
      );
    } finally {
      await sql.end();
    }
  }

  async stop(): Promise<void> {
    await this.server.kill();
    rmSync(this.folder, { recursive: true, force: true });
  }
}
