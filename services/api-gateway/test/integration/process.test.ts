import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, ServiceProcess, useBroker, brokerEnv } from "@toolmesh/test-support";
import { startConfigService } from "./fixture.js";

// The gateway as operators run it: `node services/api-gateway/dist/main.js` (built by `pnpm build`).
let config: { stop: () => Promise<void> };
let gateway: ServiceProcess;

beforeAll(async () => {
  const broker = await useBroker();
  config = await startConfigService(broker);
  gateway = await ServiceProcess.start({ service: "api-gateway", env: { ...brokerEnv(broker) } });
});

afterAll(async () => {
  await gateway?.stop();
  await config?.stop();
});

describe("dist/main.js", () => {
  it("becomes ready with config loaded and forwards REST requests", async () => {
    const ready = await fetch(`${gateway.url}/readyz`);
    expect(await ready.json()).toMatchObject({ status: "ready", checks: { broker: true, config: true } });
    const response = await fetch(`${gateway.url}/api/v1/flow/default/service/config`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ operation: "list", type: "tool-service" }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { error: unknown; directory: unknown };
    expect(body.error).toBeUndefined();
    expect(Array.isArray(body.directory)).toBe(true);
  });

  it("stops cleanly on SIGTERM", async () => {
    expect(await gateway.stop()).toBe(0);
  });

  it("refuses a bad environment with a message naming the variable", () => {
    const main = resolve(REPO_ROOT, "services/api-gateway/dist/main.js");
    const run = spawnSync(process.execPath, [main], {
      env: { ...process.env, GATEWAY_REQUEST_TIMEOUT_MS: "soon" },
      encoding: "utf8",
      timeout: 15_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/GATEWAY_REQUEST_TIMEOUT_MS="soon"/);
  });
});
