import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ServicePorts } from "@toolmesh/schema";
import { REPO_ROOT } from "@toolmesh/test-support";

// An operator's typo must be one readable line naming the variable, and a non-zero exit, before the
// service touches the broker: every service goes through startService() for that.
const services = Object.keys(ServicePorts);

describe("a bad environment", () => {
  it.each(services)("%s prints one line naming each bad variable and exits 1", (service) => {
    const result = spawnSync(process.execPath, [resolve(REPO_ROOT, "services", service, "dist/main.js")], {
      env: {
        PATH: process.env.PATH,
        HTTP_PORT: "eighty",
        SHUTDOWN_TIMEOUT_MS: "-5",
        TOOLMESH_TENANT: "a/b",
        PULSAR_WEB_URL: "http://127.0.0.1:1",
      },
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    const lines = result.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^${service}: invalid environment: HTTP_PORT="eighty": .+; SHUTDOWN_TIMEOUT_MS="-5": .+$`));
    // The tenant rule is @toolmesh/schema's (TenantName), said in words.
    expect(lines[0]).toContain(`TOOLMESH_TENANT="a/b": a tenant name: 1-64 of A-Z, a-z, 0-9, '_', '-'`);
    expect(result.stdout).toBe("");
  });
});
