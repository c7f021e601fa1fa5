import { createRequire } from "node:module";
import { Command, CommanderError } from "commander";
import { registerCommands } from "./commands/index.js";
import { type Io, createContext } from "./context.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

/** Commander's usage errors in the same one-line `tg: ...` form as every other failure. */
function usageLine(text: string): string {
  return `tg: ${text
    .trim()
    .replace(/^error: /, "")
    .replace(/\s*\n\s*/g, " ")}\n`;
}

export function buildProgram(io: Io): Command {
  // Settings first: commands created with `.command()` inherit them.
  const program = new Command("tg")
    .description("toolmesh command line: config, tools, MCP tools and the agent, through the api-gateway")
    .version(version)
    .option("-f, --flow <flow>", "flow the gateway routes requests through", "default")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout(text),
      writeErr: (text) => io.stderr(text),
      outputError: (text, write) => write(usageLine(text)),
    })
    .addHelpText(
      "after",
      "\nEnvironment:\n  TG_URL         api-gateway base URL (default http://127.0.0.1:8088)\n" +
        "  TG_TOKEN       bearer token for the gateway (and the MCP endpoint)\n  TG_MCP_URL     MCP endpoint for `tg mcp` (default http://127.0.0.1:8706/mcp)\n  TG_TIMEOUT_MS  per-call timeout (default 120000)\n",
    );
  registerCommands(program, createContext(io));
  return program;
}

/**
 * Runs one `tg` invocation and returns its exit code. Every failure is one line `tg: <message>` on stderr
 * and exit code 1; commander's own usage errors keep their exit code.
 */
export async function run(argv: readonly string[], io: Io): Promise<number> {
  try {
    await buildProgram(io).parseAsync([...argv], { from: "user" });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    const message = err instanceof Error ? err.message : String(err);
    io.stderr(`tg: ${message.replace(/\s*\n\s*/g, " ")}\n`);
    return 1;
  }
}
