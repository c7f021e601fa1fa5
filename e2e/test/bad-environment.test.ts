import { execFile, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ServicePorts } from "@toolmesh/schema";
import { REPO_ROOT, brokerEnv, freePort, testServerUrl, useBroker } from "@toolmesh/test-support";

// An operator's typo must be one readable line naming the variable, and a non-zero exit, before the
// service touches the broker: every service goes through startService() for that.
const services = Object.keys(ServicePorts);

/** Runs the service's main.ts with only `env` (and PATH) until it exits; its exit status, stdout and stderr lines. */
function startWith(service: string, env: Record<string, string>, timeout = 20_000) {
  const main = resolve(REPO_ROOT, "services", service, "dist/main.js");
  return new Promise<{ status: number | null; stdout: string; lines: string[] }>((done) => {
    execFile(process.execPath, [main], { env: { PATH: process.env.PATH, ...env }, encoding: "utf8", timeout }, (error, stdout, stderr) => {
      // A non-zero exit comes as an error whose code is the status; a kill (the timeout) has none.
      const status = error ? (typeof error.code === "number" ? error.code : null) : 0;
      done({ status, stdout, lines: stderr.trimEnd().split("\n") });
    });
  });
}

// Each case is a process that starts and exits by itself, so they run a few at a time.
describe.concurrent("a bad environment", () => {
  it.each(services)("%s prints one line naming each bad variable and exits 1", async (service) => {
    const result = await startWith(service, {
      HTTP_PORT: "eighty",
      SHUTDOWN_TIMEOUT_MS: "-5",
      TOOLMESH_TENANT: "a/b",
      PULSAR_WEB_URL: "http://127.0.0.1:1",
    });
    expect(result.status).toBe(1);
    const lines = result.lines;
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^${service}: invalid environment: HTTP_PORT="eighty": .+; SHUTDOWN_TIMEOUT_MS="-5": .+$`));
    // The tenant rule is @toolmesh/schema's (TenantName), said in words.
    expect(lines[0]).toContain(`TOOLMESH_TENANT="a/b": a tenant name: 1-64 of A-Z, a-z, 0-9, '_', '-'`);
    expect(result.stdout).toBe("");
  });

  // The Pulsar settings checked after parsing (files that must be readable, variables that go in pairs)
  // are the same kind of mistake and must read the same way, not as a stack trace.
  it.each(services)("%s names an unreadable TLS file and a certificate without its key in one line", async (service) => {
    const result = await startWith(service, {
      HTTP_PORT: "0",
      PULSAR_SERVICE_URL: "pulsar+ssl://127.0.0.1:1",
      PULSAR_TLS_CA_FILE: "/nonexistent/ca.pem",
      PULSAR_TLS_CERT_FILE: "/nonexistent/client.pem",
    });
    expect(result.status).toBe(1);
    const lines = result.lines;
    expect(lines).toEqual([
      `${service}: invalid environment: PULSAR_TLS_KEY_FILE: a client certificate needs both PULSAR_TLS_CERT_FILE and PULSAR_TLS_KEY_FILE; ` +
        `PULSAR_TLS_CA_FILE="/nonexistent/ca.pem": cannot read it (ENOENT); PULSAR_TLS_CERT_FILE="/nonexistent/client.pem": cannot read it (ENOENT)`,
    ]);
    expect(result.stdout).toBe("");
  });

  // HTTP_HOST and HTTP_PORT are tried before the service starts (and again when it listens): a port taken by
  // another process (or a host that does not resolve) is still a setting to name, not a crash.
  it("a service whose HTTP_PORT is taken says so in one line naming the variables, and exits 1", async () => {
    const broker = await useBroker();
    const taken = createServer();
    await new Promise<void>((done) => taken.listen(0, "127.0.0.1", done));
    const port = (taken.address() as { port: number }).port;
    try {
      const child = spawn(process.execPath, [resolve(REPO_ROOT, "services/joke-service/dist/main.js")], {
        env: { PATH: process.env.PATH, ...brokerEnv(broker), HTTP_PORT: String(port), JOKE_ANNOUNCE: "false", BROKER_DROPS_POLL_MS: "0" },
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += String(chunk)));
      const status = await new Promise<number | null>((done) => child.on("exit", done));
      expect(status).toBe(1);
      expect(stderr.trimEnd().split("\n")).toEqual([
        `joke-service: cannot listen on HTTP_HOST="127.0.0.1" HTTP_PORT="${port}": listen EADDRINUSE: address already in use 127.0.0.1:${port} (another process is listening there; set HTTP_PORT to a free port)`,
      ]);
    } finally {
      taken.close();
    }
  });

  // DATABASE_URL is only tried when the store opens: a server that is not there, or a database that does
  // not exist on it, is a setting to name in one line (without the password), not a JSON crash log.
  const stateful = ["config", "tool-registry", "agent"];
  const run = async (service: string, databaseUrl: string) => {
    const broker = await useBroker();
    return startWith(service, { ...brokerEnv(broker), HTTP_PORT: "0", DATABASE_URL: databaseUrl, DATABASE_CONNECT_TIMEOUT_S: "5" }, 30_000);
  };

  it.each(stateful)("%s names DATABASE_URL in one line when nothing listens there", async (service) => {
    const port = await freePort();
    const { status, lines } = await run(service, `postgres://toolmesh:s3cret-pw@127.0.0.1:${port}/toolmesh`);
    expect(status).toBe(1);
    expect(lines).toEqual([
      `${service}: cannot open the database at DATABASE_URL="postgres://127.0.0.1:${port}/toolmesh": connect ECONNREFUSED 127.0.0.1:${port}`,
    ]);
  });

  it.each(stateful)("%s names DATABASE_URL in one line when its database does not exist", async (service) => {
    const url = new URL(testServerUrl());
    url.pathname = "/no_such_database";
    const { status, lines } = await run(service, url.toString());
    expect(status).toBe(1);
    expect(lines).toEqual([
      `${service}: cannot open the database at DATABASE_URL="postgres://${url.host}/no_such_database": database "no_such_database" does not exist (3D000)`,
    ]);
  });

  // The SQLite folder is made when the store opens: one that cannot be (a file in the way, or procfs, where
  // Node 20's recursive mkdir spun forever at full CPU) is a setting to name in one line, not a hang.
  const dataDirs: Record<string, string> = { config: "CONFIG_DATA_DIR", "tool-registry": "REGISTRY_DATA_DIR", agent: "AGENT_DATA_DIR" };
  it.each(stateful)("%s names its data folder in one line when it cannot be made", async (service) => {
    const broker = await useBroker();
    const variable = dataDirs[service]!;
    const file = join(mkdtempSync(join(tmpdir(), "toolmesh-bad-data-")), "file");
    writeFileSync(file, "x");
    for (const [dir, reason] of [
      [join(file, "state"), `ENOTDIR: not a directory, mkdir '${file}/state'`],
      ["/proc/toolmesh-state", "ENOENT: no such file or directory, mkdir '/proc/toolmesh-state'"],
    ] as const) {
      const { status, lines } = await startWith(service, { ...brokerEnv(broker), HTTP_PORT: "0", [variable]: dir });
      expect(status).toBe(1);
      expect(lines).toEqual([`${service}: cannot create the data folder ${variable}="${dir}": ${reason}`]);
    }
  });
});
