import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, brokerEnv, useBroker, waitFor } from "@toolmesh/test-support";
import { ServicePorts } from "@toolmesh/schema";

// `npm run up`, then Ctrl-C: the terminal sends SIGINT to its whole foreground process group. Every service
// must stop gracefully (log "stopped"), not be cut short as by a second signal.
const SERVICES = ["config", "joke-service", "mcp-tool", "tool-registry", "agent", "api-gateway", "mcp-server"];
const dataDir = mkdtempSync(join(tmpdir(), "toolmesh-up-"));
let up: ChildProcess;
let output = "";

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer()
      .once("error", () => resolve(false))
      .listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });

/** An offset that moves every port `npm run up` uses onto free ones. */
async function freeOffset(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const offset = 10_000 + Math.floor(Math.random() * 20_000);
    const free = await Promise.all(Object.values(ServicePorts).map((port) => portFree(port + offset)));
    if (free.every(Boolean)) return offset;
  }
  throw new Error("no free port range for run-system");
}

beforeAll(async () => {
  const broker = await useBroker();
  up = spawn(process.execPath, ["scripts/run-system.mjs"], {
    cwd: REPO_ROOT,
    // Its own process group, as a terminal's foreground job: the test signals the group, as Ctrl-C does.
    detached: true,
    env: { ...process.env, ...brokerEnv(broker), TOOLMESH_PORT_OFFSET: String(await freeOffset()), TOOLMESH_DATA_DIR: dataDir },
    stdio: ["ignore", "pipe", "pipe"],
  });
  up.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  up.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  await waitFor(() => output.includes("toolmesh is up"), { timeoutMs: 180_000, description: "run-system to print toolmesh is up" });
}, 240_000);

afterAll(() => {
  if (up?.exitCode === null && up.pid) process.kill(-up.pid, "SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

describe("npm run up, then Ctrl-C", () => {
  it("prints the catalog revision that holds the seeded tool its first tool call names", async () => {
    const plain = stripVTControlCharacters(output);
    const [, number, count, catalogUrl] = /^catalog revision: (\d+) with (\d+) tools \(curl -s (\S+)\)$/m.exec(plain) ?? [];
    expect(plain).toContain("npm run tg -- invoke-tool -n tell-joke");
    const revision = (await (await fetch(`${catalogUrl}/revisions/${number}`)).json()) as { tools: Array<{ name: string }> };
    expect(revision.tools.map((t) => t.name)).toContain("tell-joke");
    expect(revision.tools).toHaveLength(Number(count));
  });

  it("stops every service gracefully, each once", async () => {
    const exited = new Promise<number | null>((resolve) => up.once("exit", (code) => resolve(code)));
    process.kill(-up.pid!, "SIGINT");
    expect(await exited).toBe(0);
    const plain = stripVTControlCharacters(output);
    expect(plain).not.toMatch(/second SIG/);
    for (const service of SERVICES) expect(plain, service).toMatch(new RegExp(`^${service} +\\S+ info stopped$`, "m"));
  }, 60_000);
});

describe("npm run up while a port it needs is taken (say, by a toolmesh already running)", () => {
  it("starts no service, names the port and its service, and says how to run a second system", async () => {
    const offset = await freeOffset();
    const taken = ServicePorts.config + offset;
    const blocker = createServer().listen(taken, "127.0.0.1");
    await new Promise((resolve) => blocker.once("listening", resolve));
    try {
      const second = spawn(process.execPath, ["scripts/run-system.mjs"], {
        cwd: REPO_ROOT,
        env: { ...process.env, TOOLMESH_PORT_OFFSET: String(offset), TOOLMESH_DATA_DIR: dataDir },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let printed = "";
      second.stdout.on("data", (chunk: Buffer) => (printed += chunk.toString()));
      second.stderr.on("data", (chunk: Buffer) => (printed += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => second.once("exit", resolve));
      expect(code).toBe(1);
      expect(printed).toContain(`ports in use: ${taken} (config).`);
      expect(printed).toMatch(/TOOLMESH_PORT_OFFSET=\d+ TOOLMESH_TENANT=\S+ TOOLMESH_DATA_DIR=\S+ npm run up/);
      expect(printed).not.toMatch(/listening|toolmesh is up/);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});
