import postgres from "postgres";
import { z } from "zod";
import { TLS_SETTINGS_ERRORS, driverConnection, sslParameterProblem, tlsHint } from "./database-tls.js";
import { splitDatabaseUrl } from "./database-url.js";
import { CONNECT_FAILURES } from "./database-outage.js";
import { oneQueryPerConnection } from "./one-query-per-connection.js";
import { StartupError } from "./startup-error.js";

/**
 * Errors that say DATABASE_URL (or the server behind it) is wrong rather than toolmesh: the host refuses,
 * does not resolve or does not answer in time, the credentials or the database name are wrong, the role
 * may not create tables. Node's codes, then PostgreSQL's SQLSTATEs.
 */
const SETTINGS_ERRORS = new Set<string>([...CONNECT_FAILURES, "28P01", "28000", "3D000", "42501", ...TLS_SETTINGS_ERRORS]);

/** A PostgreSQL connection pool (porsager's `postgres` driver). */
export type Sql = postgres.Sql;
/** What queries run on: the pool, or a transaction of it. */
export type Db = postgres.ISql;

/**
 * Variables of the services that keep state (config, tool-registry, agent). DATABASE_URL set: the state
 * lives in that PostgreSQL database, shared by every replica; unset: a SQLite file in the service's data
 * folder (one replica).
 */
export const DatabaseEnv = z.object({
  // A host is required: the driver reads `postgres:user@db/x` (no `//`) as no host and quietly uses localhost.
  DATABASE_URL: z
    .string()
    .refine((url) => splitDatabaseUrl(url) !== undefined, {
      message: "must be a postgres://user:password@host:port/database URL (hosts: host:port,host:port for a primary and its standbys)",
    })
    .superRefine((url, ctx) => {
      const problem = sslParameterProblem(url) ?? driverParameterProblem(url);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    })
    .optional(),
  /** Connections one process keeps at most. */
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(1_000).default(10),
  /** Seconds allowed to open one connection. */
  DATABASE_CONNECT_TIMEOUT_S: z.coerce.number().int().positive().default(10),
  /**
   * DATABASE_URL goes through a pooler that hands each transaction to whichever server connection is free
   * (PgBouncer's `pool_mode = transaction`, and poolers like it). Then no named prepared statements (one
   * prepared on one server connection is missing on the next) and one query at a time per connection
   * (oneQueryPerConnection).
   */
  DATABASE_TRANSACTION_POOLING: z.stringbool({ message: "must be true or false" }).default(false),
});
export type DatabaseEnv = z.output<typeof DatabaseEnv>;

/**
 * The `postgres` driver's own settings that DATABASE_URL's query could carry: the services set them from
 * their variables, so the URL's would be ignored without a word. `prepare=false` is what the driver's
 * docs give for PgBouncer, so it is the one an operator is likely to write.
 */
const DRIVER_SETTINGS: Record<string, string> = {
  prepare: "DATABASE_TRANSACTION_POOLING",
  max: "DATABASE_POOL_MAX",
  connect_timeout: "DATABASE_CONNECT_TIMEOUT_S",
};

function driverParameterProblem(databaseUrl: string): string | undefined {
  for (const name of splitDatabaseUrl(databaseUrl)?.first.searchParams.keys() ?? []) {
    const variable = DRIVER_SETTINGS[name];
    if (variable) return `${name}= in the URL is not read: set ${variable} instead`;
  }
  return undefined;
}

/** How one process's pool connects (from DatabaseEnv: poolSettings). */
export interface PoolSettings {
  /** Connections kept at most (10). */
  max?: number;
  /** Seconds allowed to open one connection (10). */
  connectTimeoutS?: number;
  /** Behind a transaction pooler (false): see DATABASE_TRANSACTION_POOLING. */
  transactionPooling?: boolean;
}

/** The pool settings DatabaseEnv's variables give. */
export function poolSettings(
  env: Pick<DatabaseEnv, "DATABASE_POOL_MAX" | "DATABASE_CONNECT_TIMEOUT_S" | "DATABASE_TRANSACTION_POOLING">,
): PoolSettings {
  return {
    max: env.DATABASE_POOL_MAX,
    connectTimeoutS: env.DATABASE_CONNECT_TIMEOUT_S,
    transactionPooling: env.DATABASE_TRANSACTION_POOLING,
  };
}

/** The longest wait, in seconds, before a pool connection that failed tries the database again. */
export const DATABASE_RECONNECT_MAX_S = 2;

/**
 * Seconds before a failed connection's next attempt, after `retries` failures in a row (counted across the
 * pool): doubling from 50 ms up to DATABASE_RECONNECT_MAX_S, with jitter so replicas spread out. The driver's
 * own curve reaches 20 s after seven failures, which a pool of ten makes within a second of the database
 * going away: a restart of a few seconds then kept every query waiting up to 20 s more once it was back.
 */
export function reconnectDelayS(retries: number): number {
  return (0.5 + Math.random() / 2) * Math.min(0.05 * 2 ** retries, DATABASE_RECONNECT_MAX_S);
}

/**
 * A pool on `url`, with TLS as its libpq parameters say (`driverConnection`). BIGINT columns and COUNT(*)
 * come back as JS numbers (toolmesh's are versions, counts and millisecond times, far below 2^53) rather
 * than the driver's default strings; notices (e.g. "relation already exists, skipping") are not logged.
 * A connection lost or refused is tried again after reconnectDelayS. Behind a transaction pooler
 * (`transactionPooling`), no named prepared statements and one query at a time per connection.
 */
export function connectPostgres(url: string, options: PoolSettings = {}): Sql {
  const { url: driverUrl, ssl } = driverConnection(url);
  const max = options.max ?? 10;
  const sql = postgres(driverUrl, {
    ssl,
    max,
    connect_timeout: options.connectTimeoutS ?? 10,
    prepare: !options.transactionPooling,
    backoff: reconnectDelayS,
    onnotice: () => undefined,
    types: { bigint: { to: 20, from: [20], serialize: (n: number) => String(n), parse: (text: string) => Number(text) } },
  });
  return options.transactionPooling ? oneQueryPerConnection(sql, max) : sql;
}

/**
 * A pool on `url` with `component`'s migrations applied (safe when several replicas start at once); the pool
 * is closed again when they fail.
 */
export async function openDatabase(
  url: string,
  component: string,
  migrations: readonly Migration[],
  pool: PoolSettings = {},
): Promise<Sql> {
  const sql = connectPostgres(url, pool);
  try {
    await migrate(sql, component, migrations);
    return sql;
  } catch (err) {
    await sql.end();
    const code = (err as { code?: unknown }).code;
    if (typeof code === "string" && SETTINGS_ERRORS.has(code)) {
      const message = (err as Error).message;
      const hint = tlsHint(code, message);
      throw new StartupError(
        `cannot open the database at DATABASE_URL="${databaseLocation(url)}": ${message}${message.includes(code) ? "" : ` (${code})`}${hint ? `; ${hint}` : ""}`,
      );
    }
    throw err;
  }
}

/** One step of a component's schema, applied once, in order of `version`. */
export interface Migration {
  version: number;
  /** What it does, recorded beside the version. */
  name: string;
  sql: string;
}

/**
 * Brings `component`'s tables up to its newest migration; returns the versions applied now. Everything runs
 * in one transaction under one advisory lock shared by every component, so replicas starting at once
 * apply each migration exactly once: the others wait, then find it recorded.
 */
export async function migrate(sql: Sql, component: string, migrations: readonly Migration[]): Promise<number[]> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(hashtext('toolmesh:migrations'))`;
    await tx`CREATE TABLE IF NOT EXISTS toolmesh_migrations (
      component TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL,
      applied_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (component, version)
    )`;
    const rows = await tx<Array<{ version: number }>>`SELECT version FROM toolmesh_migrations WHERE component = ${component}`;
    const done = new Set(rows.map((r) => r.version));
    const applied: number[] = [];
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(migration.version)) continue;
      await tx.unsafe(migration.sql);
      await tx`INSERT INTO toolmesh_migrations (component, version, name) VALUES (${component}, ${migration.version}, ${migration.name})`;
      applied.push(migration.version);
    }
    return applied;
  });
}

/** The database a URL names (every host of a multi-host one), without user or password, for logs. */
export function databaseLocation(url: string): string {
  const parts = splitDatabaseUrl(url);
  return parts ? `${parts.scheme}//${parts.hosts.join(",")}${parts.first.pathname}` : "(not a postgres URL)";
}
