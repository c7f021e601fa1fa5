import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PulsarClient } from "@toolmesh/pulsar";
import { ServiceProcess, useBroker, waitFor, testTopics } from "@toolmesh/test-support";

// Issue 12 item 4(c): a service whose config reloads keep failing used to stay "ready" on stale config,
// silently. mcp-tool stands for every service that reads config (they share ConfigView and its readiness).

interface Readiness {
  status: string;
  checks: Record<string, boolean>;
  reasons?: Record<string, string>;
}

const dataDir = mkdtempSync(join(tmpdir(), "config-outage-"));
let webServiceUrl: string;
let pulsar: PulsarClient;
let config: ServiceProcess;
let mcpTool: ServiceProcess;

const readiness = async () => {
  const response = await fetch(`${mcpTool.url}/readyz`);
  return { status: response.status, body: (await response.json()) as Readiness };
};
const logLines = () =>
  mcpTool.logs
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { level: number; msg: string; failures?: number });

beforeAll(async () => {
  ({ webServiceUrl } = await useBroker());
  pulsar = new PulsarClient({ webServiceUrl });
  config = await ServiceProcess.start({ service: "config", env: { PULSAR_WEB_URL: webServiceUrl, CONFIG_DATA_DIR: dataDir } });
  mcpTool = await ServiceProcess.start({
    service: "mcp-tool",
    env: { PULSAR_WEB_URL: webServiceUrl, CONFIG_REQUEST_TIMEOUT_MS: "1000", CONFIG_UNREADY_AFTER_FAILURES: "3" },
  });
});

afterAll(async () => {
  await pulsar?.close();
  await mcpTool?.stop();
  await config?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("a config reload that keeps failing", () => {
  it("turns /readyz 503 with the reason after 3 failures, logs one error for the streak, and recovers", async () => {
    expect((await readiness()).status).toBe(200);
    await config.stop();
    // A push makes every service reload, as after any change; with config gone each reload times out.
    await pulsar.sendJson(testTopics().configNotify, { version: 1_000_000, changes: { mcp: ["default"] } });

    const unready = await waitFor(
      async () => {
        const { status, body } = await readiness();
        return status === 503 && /\((\d{2,}|[5-9]) attempts\)/.test(body.reasons?.config ?? "") ? body : undefined;
      },
      { timeoutMs: 60_000, description: "/readyz 503 after 5+ failed reloads" },
    );
    expect(unready.checks).toEqual({ accepting: true, broker: true, config: false });
    expect(unready.reasons!.config).toMatch(
      /^config reloads failing since \S+Z \(\d+ attempts\), still serving version \d+: no reply on non-persistent:\/\/[^/]+\/response\/config within 1000 ms .* sent to non-persistent:\/\/[^/]+\/request\/config/,
    );
    const streak = logLines().filter((l) => /config reload/.test(l.msg));
    expect(streak.filter((l) => l.level === 40).map((l) => l.msg)).toEqual(["config reload failed; retrying"]);
    expect(streak.filter((l) => l.level === 50).map((l) => l.msg)).toEqual([
      "config reloads keep failing; /readyz reports not ready until one succeeds",
    ]);

    await config.spawn();
    const ready = await waitFor(
      async () => {
        const { status, body } = await readiness();
        return status === 200 ? body : undefined;
      },
      { timeoutMs: 30_000, description: "/readyz 200 once config answers again" },
    );
    expect(ready).toEqual({ status: "ready", checks: { accepting: true, broker: true, config: true } });
    const recovered = logLines().find((l) => l.msg === "config reload works again");
    expect(recovered?.failures).toBeGreaterThanOrEqual(5);
  }, 120_000);
});
