import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorType, ServiceError } from "@toolmesh/schema";
import { PgBouncer, type TestDatabase, createTestDatabase } from "@toolmesh/test-support";
import {
  DatabaseEnv,
  MISSING_PREPARED_STATEMENT,
  type Sql,
  connectPostgres,
  poolSettings,
  reportUnreachableDatabase,
} from "../../src/index.js";

// A real PgBouncer in transaction mode (the pooler operators put in front of many replicas) hands each
// transaction to whichever server connection is free. Before 1.21 (Debian 12 ships 1.18) two things then
// break a default pool: a statement one server connection prepared is missing on the next, and a query
// sent behind another on one connection is lost. DATABASE_TRANSACTION_POOLING=true opens the pool for it;
// a service left on the default must say what to change. From 1.24 on (max_prepared_statements 200 by
// default) PgBouncer itself prepares the statement again where it is missing, and the defaults work.
let bouncer: PgBouncer;
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase("pgbouncer");
  bouncer = await PgBouncer.start(database.url, { poolMode: "transaction", poolSize: 2 });
}, 60_000);
afterAll(async () => {
  await bouncer?.stop();
  await database?.drop();
});

/** A store of one query in a transaction (as the real stores write), run on the client connection it is pointed at. */
class AnsweringStore {
  on: Sql | undefined;
  async answer(): Promise<number> {
    const on = this.on!;
    await on.unsafe("BEGIN");
    try {
      const [row] = await on<Array<{ answer: number }>>`SELECT ${41}::int + 1 AS answer`;
      await on.unsafe("COMMIT");
      return row!.answer;
    } catch (err) {
      await on.unsafe("ROLLBACK");
      throw err;
    }
  }
}

/**
 * The sequence that moves a client connection to another server connection: the first client runs the
 * store's query (prepared on server connection A), a second client takes A for a while (PgBouncer hands
 * out the connection used last), and the first runs the query again, now on B. Outside a transaction the
 * driver would prepare it again and retry; inside one the error has aborted the transaction first. Store
 * errors are reported as a service reports them (reportUnreachableDatabase).
 */
async function queryAfterItsServerConnectionIsTaken(sql: Sql): Promise<number> {
  const raw = new AnsweringStore();
  const store = reportUnreachableDatabase(raw);
  const [first, second] = [await sql.reserve(), await sql.reserve()];
  raw.on = first;
  try {
    expect(await store.answer()).toBe(42);
    // Sent now (the driver's queries are lazy until awaited or executed).
    const holding = second`SELECT pg_sleep(0.5)`.execute();
    await new Promise((r) => setTimeout(r, 100));
    const again = await store.answer();
    await holding;
    return again;
  } finally {
    first.release();
    second.release();
  }
}

/** Whether this PgBouncer is older than 1.21, the release that tracks every query sent on a connection. */
const losesPipelinedQueries = () => {
  const [major, minor] = (/(\d+)\.(\d+)/.exec(bouncer.version) ?? []).slice(1).map(Number);
  return major! === 1 && minor! < 21;
};

/**
 * Rounds of: a fresh pool of one connection, a query under way on it, four queries with a parameter sent
 * behind it. Whether PgBouncer loses one depends on how the packets interleave, so up to `rounds` are run,
 * stopping at the first lost one (unanswered for a second; loopback answers in milliseconds). Returns how
 * many rounds were answered in full and whether one was lost.
 */
async function queriesBehindAnother(
  transactionPooling: boolean,
  rounds: number,
  via: PgBouncer = bouncer,
): Promise<{ answered: number; lost: boolean }> {
  let answered = 0;
  for (let round = 0; round < rounds; round++) {
    const sql = connectPostgres(via.through(database.url), { max: 1, connectTimeoutS: 5, transactionPooling });
    try {
      await sql`SELECT 1`; // connected: a query is only sent behind another on an open connection
      const all = Promise.all([sql`SELECT pg_sleep(0.05)`, ...[0, 1, 2, 3].map((i) => sql`SELECT ${i}::int AS i`)]);
      const lost = new Promise((resolve) => setTimeout(() => resolve("lost"), 1_000).unref());
      if ((await Promise.race([all, lost])) === "lost") return { answered, lost: true };
      answered++;
    } finally {
      await sql.end({ timeout: 0.1 });
    }
  }
  return { answered, lost: false };
}

describe("PostgreSQL through PgBouncer in transaction mode (Debian 12's)", () => {
  it("by default a prepared statement is missing on another server connection, and the store says to set DATABASE_TRANSACTION_POOLING=true", async () => {
    const env = DatabaseEnv.parse({ DATABASE_URL: bouncer.through(database.url) });
    expect(env.DATABASE_TRANSACTION_POOLING).toBe(false);
    const sql = connectPostgres(env.DATABASE_URL!, poolSettings(env));
    try {
      const failure = await queryAfterItsServerConnectionIsTaken(sql).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(failure).toBeInstanceOf(ServiceError);
      expect((failure as ServiceError).type).toBe(ErrorType.internal);
      expect((failure as ServiceError).message).toBe(MISSING_PREPARED_STATEMENT);
      // The driver's own error is kept for the log.
      expect(((failure as ServiceError).cause as { code: string; message: string }).code).toBe("26000");
      expect(((failure as ServiceError).cause as { message: string }).message).toMatch(/^prepared statement ".+" does not exist$/);
    } finally {
      await sql.end();
    }
  });

  it("with DATABASE_TRANSACTION_POOLING=true the same sequence is answered", async () => {
    const env = DatabaseEnv.parse({ DATABASE_URL: bouncer.through(database.url), DATABASE_TRANSACTION_POOLING: "true" });
    const sql = connectPostgres(env.DATABASE_URL!, poolSettings(env));
    try {
      expect(await queryAfterItsServerConnectionIsTaken(sql)).toBe(42);
      // Both of the pool's server connections were opened: the client's two queries ran on different ones.
      const pool = await bouncer.pools(new URL(database.url).pathname.slice(1));
      expect(pool!.serversActive + pool!.serversIdle).toBe(2);
    } finally {
      await sql.end();
    }
  });

  it(`by default a query sent behind another on one connection is lost (PgBouncer before 1.21); with DATABASE_TRANSACTION_POOLING=true every one is answered`, async () => {
    // Default: one of 20 rounds is all but certain to lose a query (in runs here, 3 rounds in 5 did).
    expect((await queriesBehindAnother(false, 20)).lost).toBe(losesPipelinedQueries());
    // Transaction pooling: 20 rounds answered in full (without one query at a time per connection, about
    // one round in three lost a query here).
    expect(await queriesBehindAnother(true, 20)).toEqual({ answered: 20, lost: false });
    const pooled = connectPostgres(bouncer.through(database.url), { max: 1, transactionPooling: true });
    try {
      // And the pool still takes everything the stores send: transactions, helpers, unsafe().
      const rows = [{ n: 1 }, { n: 2 }];
      expect(
        await pooled.begin(
          async (tx) => tx<Array<{ n: number }>>`SELECT n::int AS n FROM (VALUES ${tx(rows.map((r) => [r.n]))}) AS t(n) ORDER BY n`,
        ),
      ).toEqual(rows);
      expect(await pooled.unsafe("SELECT 3 AS n")).toEqual([{ n: 3 }]);
    } finally {
      await pooled.end();
    }
  });
});

describe("PostgreSQL through PgBouncer 1.24 in transaction mode", () => {
  let current: PgBouncer;
  // The first run builds it from source (scripts/pgbouncer-upstream.sh), about 20 s.
  beforeAll(async () => {
    current = await PgBouncer.start(database.url, { poolMode: "transaction", poolSize: 2, release: "upstream" });
  }, 180_000);
  afterAll(() => current?.stop());

  it("needs nothing: with the defaults, a statement prepared on one server connection is answered on another, and no query sent behind another is lost", async () => {
    expect(current.version).toMatch(/^PgBouncer 1\.(2[4-9]|[3-9]\d)\b/);
    const env = DatabaseEnv.parse({ DATABASE_URL: current.through(database.url) });
    expect(env.DATABASE_TRANSACTION_POOLING).toBe(false);
    const sql = connectPostgres(env.DATABASE_URL!, poolSettings(env));
    try {
      expect(await queryAfterItsServerConnectionIsTaken(sql)).toBe(42);
      // The second answer did come from the other server connection: both were opened.
      const pool = await current.pools(new URL(database.url).pathname.slice(1));
      expect(pool!.serversActive + pool!.serversIdle).toBe(2);
    } finally {
      await sql.end();
    }
    expect(await queriesBehindAnother(false, 20, current)).toEqual({ answered: 20, lost: false });
  });

  it("DATABASE_TRANSACTION_POOLING=true works through it too", async () => {
    const env = DatabaseEnv.parse({ DATABASE_URL: current.through(database.url), DATABASE_TRANSACTION_POOLING: "true" });
    const sql = connectPostgres(env.DATABASE_URL!, poolSettings(env));
    try {
      expect(await queryAfterItsServerConnectionIsTaken(sql)).toBe(42);
    } finally {
      await sql.end();
    }
    expect(await queriesBehindAnother(true, 20, current)).toEqual({ answered: 20, lost: false });
  });
});

describe("PostgreSQL through PgBouncer in session mode", () => {
  it("needs nothing: with the defaults, prepared statements and queries sent behind others are all answered", async () => {
    const session = await PgBouncer.start(database.url, { poolMode: "session", poolSize: 2 });
    try {
      const sql = connectPostgres(
        session.through(database.url),
        poolSettings(DatabaseEnv.parse({ DATABASE_URL: session.through(database.url) })),
      );
      try {
        // Each client keeps its server connection while it is connected, so the statement is still there.
        expect(await queryAfterItsServerConnectionIsTaken(sql)).toBe(42);
      } finally {
        await sql.end();
      }
      expect(await queriesBehindAnother(false, 20, session)).toEqual({ answered: 20, lost: false });
    } finally {
      await session.stop();
    }
  });
});
