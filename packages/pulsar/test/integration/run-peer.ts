import { type ChildProcess, spawn } from "node:child_process";

/**
 * Runs a peer program (Apache's clients in another process); resolves with its stdout lines once it exits 0,
 * rejects with the end of its stderr otherwise. `onLine` sees each stdout line as it comes.
 */
export function runPeer(
  command: string,
  args: string[],
  onLine: (line: string) => void = () => {},
): { child: ChildProcess; done: Promise<string[]> } {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  let stderr = "";
  let partial = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    const parts = (partial + chunk.toString()).split("\n");
    partial = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      onLine(line);
    }
  });
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<string[]>((resolvePromise, reject) =>
    child.on("exit", (code) =>
      code === 0 ? resolvePromise(lines) : reject(new Error(`${args[0] ?? command} exited ${code}: ${stderr.slice(-2000)}`)),
    ),
  );
  return { child, done };
}
