import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { waitFor } from "./wait.js";

export interface ChildServerSpec {
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  /** Text the server prints (stdout or stderr) once it accepts connections. */
  ready: string;
  description: string;
  timeoutMs?: number;
  /** Whom it runs as (a root test process starting a server that refuses root). */
  uid?: number;
  gid?: number;
}

/**
 * A test server as a child process that can be killed and started again on the same port (a crash and a
 * restart, as operators see them). Output is kept (last 8 kB) for failure messages.
 */
export class ChildServer {
  private child: ChildProcess | undefined;
  private output = "";

  constructor(private readonly spec: ChildServerSpec) {}

  get logs(): string {
    return this.output;
  }

  async spawn(): Promise<void> {
    const { command, args, env, ready, description, timeoutMs = 20_000, uid, gid } = this.spec;
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], uid, gid });
    this.child = child;
    this.output = "";
    const keep = (d: Buffer) => (this.output = (this.output + d.toString()).slice(-8000));
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    await waitFor(
      () => {
        if (child.exitCode !== null) throw new Error(`${description} exited ${child.exitCode}: ${this.output}`);
        return this.output.includes(ready);
      },
      { timeoutMs, description },
    );
  }

  /** Asks it to stop (`signal`) and waits until it has. */
  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    await once(child, "exit");
  }

  /** Kills it at once (no goodbye to clients), as a crash would. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGKILL");
    await once(child, "exit");
  }
}
