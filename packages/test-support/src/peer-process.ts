import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { waitFor } from "./wait.js";

/**
 * A peer program nobody here wrote (e.g. one of TrustGraph's processors from its venv) as a child process,
 * its output kept so a test can wait for the log lines it promises.
 */
export class PeerProcess {
  private output = "";
  private readonly exited: Promise<unknown>;

  private constructor(
    readonly label: string,
    private readonly child: ChildProcess,
  ) {
    const keep = (d: Buffer) => (this.output += d.toString());
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    this.exited = once(child, "exit");
  }

  static start(label: string, command: string, args: string[], env: Record<string, string> = {}): PeerProcess {
    return new PeerProcess(label, spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] }));
  }

  /** Everything it printed so far. */
  get logs(): string {
    return this.output;
  }

  /** Waits for a log line matching `pattern` printed after the first `from` characters; returns the match. */
  async waitForLog(pattern: RegExp, { from = 0, timeoutMs = 30_000 } = {}): Promise<RegExpMatchArray> {
    try {
      return await waitFor(
        () => {
          if (this.child.exitCode !== null) throw new Error(`${this.label} exited with ${this.child.exitCode}`);
          return this.output.slice(from).match(pattern);
        },
        { timeoutMs, intervalMs: 100, description: `${this.label} to log ${pattern}` },
      );
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- ${this.label} output ---\n${this.output.slice(-4000)}`);
    }
  }

  /** Sends a signal, e.g. SIGSTOP and SIGCONT to stall it as a machine short of CPU would; no-op once it exited. */
  signal(signal: NodeJS.Signals): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
  }

  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill("SIGTERM");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}
