import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/index.js";

// The standalone broker's bookie holds its registration as a metadata-store lock. On the BookKeeper that
// Pulsar 4.0.x ships (4.17.2) one revalidation of that lock deleted and re-made its node about 1,700 times
// a second, forever: the broker burned 150% CPU and its BookKeeper client saw no bookie at moments, so
// topics failed to load and tests timed out. infra/pulsar/pom.xml pins BookKeeper 4.17.3; this runs
// infra/pulsar/check/BookieLockLoop.java on the jars start.sh runs the broker with.
const run = promisify(execFile);
const CHECK = resolve(REPO_ROOT, "infra/pulsar/check-bookie-lock.sh");

describe("the broker's BookKeeper", () => {
  it("ends a bookie registration lock's revalidation when its value is unchanged (no delete loop)", async () => {
    const { stdout } = await run("bash", [CHECK], { timeout: 120_000 });
    expect(stdout.trim()).toMatch(/^lock node deletes in 3 s after one revalidation: [01]$/);
  }, 150_000);
});
