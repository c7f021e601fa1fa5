import { run } from "../../src/cli.js";

export interface TgResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** One `tg` invocation in-process, with its output captured and only the given environment. */
export async function tg(argv: string[], env: Record<string, string | undefined> = {}): Promise<TgResult> {
  let stdout = "";
  let stderr = "";
  const code = await run(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env });
  return { code, stdout, stderr };
}

/** Asserts the error contract: exactly one line `tg: ...` on stderr. */
export function oneErrorLine(result: TgResult): string {
  const lines = result.stderr.split("\n").filter((l) => l !== "");
  if (lines.length !== 1 || !lines[0]!.startsWith("tg: ")) {
    throw new Error(`expected one 'tg: ' line on stderr, got ${JSON.stringify(result.stderr)}`);
  }
  return lines[0]!;
}
