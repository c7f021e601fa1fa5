import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectPostgres, reportUnreachableDatabase } from "@toolmesh/base";
import { type DebianPostgresServer, startDebianPostgres, startDebianStandby, waitFor } from "@toolmesh/test-support";
import { type ConfigStore, PostgresConfigStore } from "../../src/store/index.js";

// A primary and its synchronous streaming standby (real PostgreSQL 15 servers, as Patroni or any HA setup
// runs them), and config's store on a multi-host DATABASE_URL that lists the standby first with
// target_session_attrs=read-write. The store must write to the primary alone; when the primary crashes and
// the standby is promoted, it must carry on against the new primary with the version sequence unbroken and
// every acknowledged write there.
let primary: DebianPostgresServer;
let standby: DebianPostgresServer;
let store: ConfigStore;
let url: string;

/** `SELECT ...` on one server, directly. */
async function on<T>(server: DebianPostgresServer, query: string): Promise<T[]> {
  const sql = postgres(server.url, { max: 1, onnotice: () => undefined });
  try {
    return await sql.unsafe<T[]>(query);
  } finally {
    await sql.end();
  }
}

/** The port of the server a pool on `url` (opened as the services open theirs) writes to, and whether it is a standby. */
async function writingTo(): Promise<{ port: number; standby: boolean }> {
  const sql = connectPostgres(url, { max: 1 });
  try {
    const [row] = await sql<Array<{ port: number; standby: boolean }>>`SELECT inet_server_port() AS port, pg_is_in_recovery() AS standby`;
    return row!;
  } finally {
    await sql.end();
  }
}

beforeAll(async () => {
  primary = await startDebianPostgres();
  standby = await startDebianStandby(primary);
  // Synchronous: a commit is acknowledged once the standby has it too, so a failover loses none.
  await on(primary, "ALTER SYSTEM SET synchronous_standby_names = '*'");
  await on(primary, "SELECT pg_reload_conf()");
  await waitFor(
    async () => (await on<{ sync_state: string }>(primary, "SELECT sync_state FROM pg_stat_replication"))[0]?.sync_state === "sync",
    {
      description: "the standby streaming synchronously",
    },
  );
  const hosts = `127.0.0.1:${standby.port},127.0.0.1:${primary.port}`;
  url = `postgres://postgres:${new URL(primary.url).password}@${hosts}/postgres?target_session_attrs=read-write`;
  store = reportUnreachableDatabase<ConfigStore>(await PostgresConfigStore.open(url, { max: 4, connectTimeoutS: 2 }));
}, 120_000);

afterAll(async () => {
  await store?.close().catch(() => undefined);
  await standby?.stop();
  await primary?.stop();
});

describe("config's store on a primary and its standby (multi-host DATABASE_URL)", () => {
  const acked: Array<{ key: string; version: number }> = [];
  const put = async (key: string) => {
    const { version } = await store.write("default", { put: [{ type: "load", key, value: JSON.stringify({ key }) }] });
    acked.push({ key, version });
  };

  it("writes to the primary although the standby is listed first", async () => {
    expect(await writingTo()).toEqual({ port: primary.port, standby: false });
    for (let i = 0; i < 20; i++) await put(`before-${i}`);
    expect(acked.map((a) => a.version)).toEqual(acked.map((_, i) => acked[0]!.version + i));
  });

  it("carries on against the promoted standby when the primary crashes: versions unbroken, no acknowledged write lost", async () => {
    let stopped = false;
    let failures = 0;
    const writer = (async () => {
      for (let i = 0; !stopped; i++) {
        try {
          await put(`during-${i}`);
        } catch {
          failures++; // the database is away between the crash and the promotion
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    })();
    await waitFor(() => acked.length >= 40, { description: "writes under way" });
    await primary.kill();
    const ackedAtCrash = acked.length;
    await on(standby, "SELECT pg_promote()");
    await waitFor(() => acked.length >= ackedAtCrash + 20, { timeoutMs: 30_000, description: "writes going on after the promotion" });
    stopped = true;
    await writer;

    expect(await writingTo()).toEqual({ port: standby.port, standby: false });
    const versions = acked.map((a) => a.version);
    for (let i = 1; i < versions.length; i++) expect(versions[i]).toBeGreaterThan(versions[i - 1]!);
    const stored = new Map((await store.values("default", "load")).map((item) => [item.key, item.value]));
    expect(acked.filter((a) => stored.get(a.key) !== JSON.stringify({ key: a.key }))).toEqual([]);
    console.log(
      `failover: ${acked.length} puts acknowledged (versions ${versions[0]}-${versions.at(-1)}), ${ackedAtCrash} before the crash, ` +
        `${failures} refused while no primary was up, 0 lost`,
    );
  }, 60_000);
});
