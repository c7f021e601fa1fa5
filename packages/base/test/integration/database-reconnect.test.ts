import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmbeddedPostgresServer, startEmbeddedPostgres } from "@toolmesh/test-support";
import { DATABASE_RECONNECT_MAX_S, type Sql, connectPostgres } from "../../src/index.js";

// A database restart under a pool that keeps being asked for queries: every query in the outage fails
// at once, and once the server is back the pool serves again within its reconnect cap, not after the
// driver's own backoff (up to 20 s once seven connections have failed).
let server: EmbeddedPostgresServer;
let sql: Sql;
beforeAll(async () => {
  server = await startEmbeddedPostgres();
  sql = connectPostgres(server.url, { max: 4, connectTimeoutS: 5 });
}, 120_000);
afterAll(async () => {
  await sql?.end({ timeout: 1 });
  await server?.stop();
});

const one = async () => (await sql<Array<{ one: number }>>`SELECT 1 AS one`)[0]!.one;

describe("a pool when its database restarts", () => {
  it("fails queries while the server is away, then serves within its reconnect cap once it is back", async () => {
    expect(await one()).toBe(1);
    await server.halt();
    // Five seconds of queries, as a service under load sends them: each fails, and the pool's failures run
    // far past the seven after which the driver's own curve waits 10-20 s.
    const failures: Array<Promise<unknown>> = [];
    for (let i = 0; i < 25; i++) {
      failures.push(
        one().then(
          () => "answered",
          (err: { code?: string }) => err.code,
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await server.resume();
    const back = performance.now();
    expect(await one()).toBe(1);
    // Every query of the outage has its answer by now or soon after: none waits out a long backoff.
    const codes = await Promise.all(failures);
    // The next attempt comes at most DATABASE_RECONNECT_MAX_S after the last failure; the margin is the
    // connection's own start on a busy machine.
    expect(performance.now() - back).toBeLessThan((DATABASE_RECONNECT_MAX_S + 3) * 1000);
    expect(codes.filter((code) => code === "ECONNREFUSED").length).toBeGreaterThan(0);
  }, 90_000);
});
