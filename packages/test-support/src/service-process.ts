import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { resolve } from "node:path";
import { REPO_ROOT } from "./broker.js";
import { waitFor } from "./wait.js";

function tryPort(port: number): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolvePort(address.port) : reject(new Error("no port"))));
    });
  });
}

let nextInRange = 0;

/**
 * A free TCP port on 127.0.0.1 (closed again before returning): the OS picks, or, with
 * TOOLMESH_TEST_PORTS=<from>-<to>, the next free one in that range (machines shared by several runs,
 * each given its own ports).
 */
export async function freePort(): Promise<number> {
  const range = /^(\d+)-(\d+)$/.exec(process.env.TOOLMESH_TEST_PORTS ?? "");
  if (!range) return tryPort(0);
  const [from, to] = [Number(range[1]), Number(range[2])];
  const size = to - from + 1;
  // Start at a pid-based offset so parallel runs (each a process of its own) rarely try the same port.
  if (nextInRange === 0) nextInRange = process.pid % size;
  for (let i = 0; i < size; i++) {
    // Claimed before the check is awaited: concurrent callers in this process (services started at once)
    // must not both find the same port free and both be handed it.
    const port = from + (nextInRange % size);
    nextInRange = (nextInRange % size) + 1;
    const taken = await tryPort(port).then(
      () => false,
      () => true,
    );
    if (!taken) return port;
  }
  throw new Error(`no free port in TOOLMESH_TEST_PORTS=${process.env.TOOLMESH_TEST_PORTS}`);
}

export interface ServiceProcessOptions {
  /** Folder under services/ (its built dist/main.js is run). */
  service: string;
  /** The service package's folder when it is not services/<service> (e.g. one scaffolded into a temp folder). */
  dir?: string;
  env?: Record<string, string>;
  /** Waits for /readyz 200 (default) or only /healthz. */
  waitFor?: "ready" | "healthy";
  timeoutMs?: number;
}

/**
 * A real service as a separate process, as operators run it: `node services/<name>/dist/main.js`, HTTP on
 * a free port, logs kept for failure messages.
 */
export class ServiceProcess {
  readonly url: string;
  private child: ChildProcess | undefined;
  private output = "";
  private exited: Promise<number | null> | undefined;

  private constructor(
    readonly options: ServiceProcessOptions,
    readonly port: number,
  ) {
    this.url = `http://127.0.0.1:${port}`;
  }

  static async start(options: ServiceProcessOptions): Promise<ServiceProcess> {
    const service = new ServiceProcess(options, Number(options.env?.HTTP_PORT ?? (await freePort())));
    await service.spawn();
    return service;
  }

  /** Everything the process printed (JSON log lines). */
  get logs(): string {
    return this.output;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async spawn(): Promise<void> {
    const main = resolve(this.options.dir ?? resolve(REPO_ROOT, "services", this.options.service), "dist/main.js");
    if (!existsSync(main)) throw new Error(`${main} is missing: build the service first (pnpm build)`);
    const child = spawn(process.execPath, [main], {
      env: {
        ...process.env,
        LOG_LEVEL: "info",
        LOG_FORMAT: "json",
        ...this.options.env,
        HTTP_PORT: String(this.port),
        HTTP_HOST: "127.0.0.1",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child = child;
    // TOOLMESH_SERVICE_LOG_DIR keeps every process's output in a file, for reading after a failed run.
    const logDir = process.env.TOOLMESH_SERVICE_LOG_DIR;
    if (logDir) mkdirSync(logDir, { recursive: true });
    const keep = (d: Buffer) => {
      this.output += d.toString();
      if (logDir) appendFileSync(resolve(logDir, `${this.options.service}-${this.port}.log`), d);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    this.exited = new Promise((r) => child.once("exit", (code) => r(code)));
    const path = (this.options.waitFor ?? "ready") === "ready" ? "/readyz" : "/healthz";
    try {
      await waitFor(
        async () => {
          if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}`);
          const response = await fetch(`${this.url}${path}`, { signal: AbortSignal.timeout(1_000) });
          return response.ok;
        },
        { timeoutMs: this.options.timeoutMs ?? 30_000, intervalMs: 100, description: `${this.options.service} ${path}` },
      );
    } catch (err) {
      child.kill("SIGKILL");
      throw new Error(`${(err as Error).message}\n--- ${this.options.service} output ---\n${this.output.slice(-4000)}`);
    }
  }

  /** SIGTERM and wait for a graceful exit; returns the exit code. */
  async stop(): Promise<number | null> {
    if (!this.child || this.child.exitCode !== null) return this.child?.exitCode ?? null;
    this.child.kill("SIGTERM");
    const code = await Promise.race([this.exited, new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 15_000))]);
    if (code === "timeout") {
      this.child.kill("SIGKILL");
      return null;
    }
    return code ?? null;
  }

  /** Kills the process without warning (SIGKILL: no shutdown hooks run), as a crash or an OOM kill does. */
  async kill(): Promise<void> {
    if (!this.child || this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill("SIGKILL");
    await this.exited;
  }

  async restart(): Promise<void> {
    await this.stop();
    this.output = "";
    await this.spawn();
  }
}
