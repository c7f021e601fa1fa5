import { join } from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ServiceProcess,
  type TestDatabase,
  brokerEnv,
  createTestDatabase,
  runPythonScript,
  testTopics,
  useBroker,
  waitFor,
} from "@toolmesh/test-support";

// A rolling restart under load from a client nobody here wrote: Apache's official Python client (PyPI's
// pulsar-client, C++ inside, its producer batching) puts config on TrustGraph's wire from 16 threads, into
// two config replicas sharing one PostgreSQL database, while each replica in turn is stopped with SIGTERM
// and started again. Request topics are non-persistent, so a put the broker dispatched to the stopping
// replica is answered there or never. Each handled put bumps the store's version once, so "stored exactly
// once" is: the version moved by exactly the number of acknowledged puts, and each one reads back.
const SCRIPT = join(import.meta.dirname, "python/config_put_load.py");
const WORKSPACE = "rolling";
const WORKERS = 16;
/** Puts acknowledged between two steps of the restart: the load is flowing before each step. */
const STEP = 150;

interface LoadResult {
  ok: boolean;
  error?: string;
  sent: number;
  acked: Array<[key: string, value: string, version: number]>;
  errors: string[];
  timeouts: string[];
  duplicates: number;
  strays: number;
}

let database: TestDatabase;
let sql: postgres.Sql;
const replicas: ServiceProcess[] = [];

const storeVersion = async () =>
  Number((await sql<Array<{ value: string }>>`SELECT value FROM config_meta WHERE name = 'version'`)[0]!.value);
/** Waits until `count` more puts were handled than when called. */
async function handled(count: number, what: string) {
  const from = await storeVersion();
  await waitFor(async () => (await storeVersion()) >= from + count, { timeoutMs: 60_000, intervalMs: 100, description: what });
}

beforeAll(async () => {
  const broker = await useBroker();
  database = await createTestDatabase("rolling");
  sql = postgres(database.url, { max: 1, onnotice: () => undefined });
  const env = { ...brokerEnv(broker), DATABASE_URL: database.url };
  replicas.push(...(await Promise.all(["a", "b"].map(() => ServiceProcess.start({ service: "config", env })))));
}, 120_000);

afterAll(async () => {
  await Promise.all(replicas.map((r) => r.stop()));
  await sql?.end();
  await database?.drop();
});

describe("a rolling restart of two config replicas under Apache's Python client", () => {
  it("answers every put without error and stores each acknowledged put exactly once", async () => {
    const broker = await useBroker();
    const { requestTopic, responseTopic } = testTopics().pair("config");
    const versionBefore = await storeVersion();
    const load = runPythonScript<LoadResult>(
      "pulsar",
      SCRIPT,
      [
        ...["--url", broker.serviceUrl, "--request-topic", requestTopic, "--response-topic", responseTopic],
        ...["--workspace", WORKSPACE, "--workers", String(WORKERS)],
      ],
      { announcesReady: true },
    );
    await load.ready;
    const exits: Array<number | null> = [];
    try {
      await handled(STEP, "puts through both replicas");
      for (const [i, replica] of replicas.entries()) {
        exits.push(await replica.stop());
        await handled(STEP, `puts while replica ${i} is down`);
        await replica.spawn();
        await handled(STEP, `puts after replica ${i} is back`);
      }
    } finally {
      await load.stop();
    }
    const result = await load.result;
    expect(result, result.error).toMatchObject({ ok: true });

    const rows = await sql<Array<{ key: string; value: string }>>`
      SELECT key, value FROM config_items WHERE workspace = ${WORKSPACE} AND type = 'load'`;
    const stored = new Map(rows.map((r) => [r.key, r.value]));
    const missing = result.acked.filter(([key, value]) => stored.get(key) !== value).map(([key]) => key);
    const versions = new Set(result.acked.map(([, , version]) => version));
    const versionDelta = (await storeVersion()) - versionBefore;
    console.log(
      `rolling restart (Python pulsar-client, ${WORKERS} workers, SIGTERM + restart of each of 2 config replicas on PostgreSQL): ` +
        JSON.stringify({ sent: result.sent, acked: result.acked.length, errors: result.errors.length, timeouts: result.timeouts.length }) +
        `; stored ${stored.size} / acked ${result.acked.length}, missing ${missing.length}, ` +
        `dup_versions ${result.acked.length - versions.size}, version delta ${versionDelta}, duplicate replies ${result.duplicates}`,
    );

    expect(exits).toEqual([0, 0]);
    expect({ errors: result.errors, timeouts: result.timeouts }).toEqual({ errors: [], timeouts: [] });
    expect(result.acked.length).toBe(result.sent);
    expect(result.acked.length).toBeGreaterThanOrEqual(5 * STEP);
    expect(missing).toEqual([]);
    expect(stored.size).toBe(result.acked.length);
    expect(versions.size).toBe(result.acked.length);
    // No put handled twice (each handling bumps the version) and none handled unanswered.
    expect(versionDelta).toBe(result.acked.length);
    expect(result.duplicates).toBe(0);
    expect(result.strays).toBe(0);
  }, 180_000);
});
