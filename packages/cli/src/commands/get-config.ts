import type { Command } from "commander";
import type { CliContext } from "../context.js";
import { prettyJsonText } from "../format.js";

export function registerGetConfig(program: Command, context: CliContext): void {
  program
    .command("get-config")
    .description("print a config value as pretty JSON")
    .requiredOption("-t, --type <type>", "config type")
    .requiredOption("-k, --key <key>", "key within the type")
    .action(async (opts: { type: string; key: string }, command: Command) => {
      context.print(prettyJsonText(await context.config(command).get(opts.type, opts.key)));
    });
}
