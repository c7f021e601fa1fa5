import { type ChildProcessByStdio, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { dirname, resolve } from "node:path";
import { createInterface, type Interface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { pythonPeer } from "@toolmesh/test-support";
import { type LoadOptions, type LoadResult, cpuMeter, summarize, withTimeout } from "../stats.js";
import type { BenchContext, CallTarget } from "./types.js";

const SCRIPT = resolve(dirname(fileURLToPath(import.meta.url)), "../../python/official_raw.py");

interface LevelResult {
  latenciesMs: number[];
  errors: number;
  firstError: string | null;
  capped: boolean;
  wallMs: number;
}

/** One side of the anchor: a Python process that prints a JSON line per answer (the first: ready). */
class PeerProcess {
  private readonly lines: Interface;
  private readonly waiting: Array<(line: string) => void> = [];
  private readonly exited: Promise<never>;
  private stderr = "";

  private constructor(readonly child: ChildProcessByStdio<Writable, Readable, Readable>) {
    this.lines = createInterface({ input: child.stdout });
    this.lines.on("line", (line) => this.waiting.shift()?.(line));
    child.stderr.on("data", (d: Buffer) => (this.stderr = (this.stderr + d.toString()).slice(-4000)));
    this.exited = new Promise<never>((_, reject) =>
      child.once("exit", (code) => reject(new Error(`official_raw.py exited ${code}\n${this.stderr}`))),
    );
    this.exited.catch(() => {}); // observed through next()
  }

  static async start(role: "server" | "client", args: string[]): Promise<PeerProcess> {
    const peer = new PeerProcess(spawn(pythonPeer("pulsar"), [SCRIPT, role, ...args], { stdio: ["pipe", "pipe", "pipe"] }));
    await peer.next(`official_raw.py ${role} to subscribe`, 30_000);
    return peer;
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** The next line the process prints, parsed. */
  async next<T>(what: string, timeoutMs: number): Promise<T> {
    const line = new Promise<string>((resolveLine) => this.waiting.push(resolveLine));
    return JSON.parse(await withTimeout(Promise.race([line, this.exited]), timeoutMs, what)) as T;
  }

  send(command: unknown): void {
    this.child.stdin.write(`${JSON.stringify(command)}\n`);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    this.child.stdin.end();
    await withTimeout(
      this.exited.catch(() => {}),
      10_000,
      "official_raw.py to exit",
    ).catch(() => this.child.kill("SIGKILL"));
  }
}

/**
 * The external anchor: the same raw round trip with Apache's official C++ client (PyPI pulsar-client):
 * an echo server and a client, two Python processes, on the broker's binary port. The client runs each
 * level's closed loop itself (warm-up first, as runLoad does), so no per-call IPC is measured; the CPU of
 * both Python processes is charged to the `bench` column of this row.
 */
export async function startOfficialRaw(ctx: BenchContext): Promise<CallTarget> {
  const name = `bench-official-raw-${randomUUID().slice(0, 8)}`;
  const topics = [`non-persistent://${ctx.tenant}/request/${name}`, `non-persistent://${ctx.tenant}/response/${name}`];
  // Server first: non-persistent topics drop what nobody is subscribed to.
  const server = await PeerProcess.start("server", [ctx.serviceUrl, ...topics, `${name}-request`]);
  const client = await PeerProcess.start("client", [ctx.serviceUrl, ...topics, `${name}-client-${randomUUID()}`]).catch(
    async (err: unknown) => {
      await server.stop();
      throw err;
    },
  );

  const level = (concurrency: number, calls: number, offset: number, capMs: number) => {
    client.send({ concurrency, calls, offset, capMs });
    return client.next<LevelResult>(`official raw c=${concurrency}`, capMs + 30_000);
  };

  return {
    call() {
      return Promise.reject(new Error("official-raw drives its own load (runLoad)"));
    },
    async runLoad(options: LoadOptions): Promise<LoadResult> {
      // Warm-up indices are offset as in runLoad, so measured calls carry arguments never seen before.
      await level(options.concurrency, options.warmup, 10_000_000 * options.concurrency, options.capMs);
      const meter = cpuMeter({ ...options.pids, pythonClient: client.pid, pythonServer: server.pid });
      const result = await level(options.concurrency, options.calls, 0, options.capMs);
      const cpu = meter(result.latenciesMs.length);
      const { pythonClient = 0, pythonServer = 0, ...perCallUs } = cpu.perCallUs;
      perCallUs.bench = (perCallUs.bench ?? 0) + pythonClient + pythonServer;
      return summarize(result.latenciesMs, {
        concurrency: options.concurrency,
        errors: result.errors,
        ...(result.firstError ? { firstError: result.firstError } : {}),
        capped: result.capped,
        wallMs: result.wallMs,
        cpu: { ...cpu, perCallUs },
      });
    },
    async close() {
      await Promise.all([client.stop(), server.stop()]);
    },
  };
}
