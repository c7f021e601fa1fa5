import type { Command } from "commander";
import type { CliContext } from "../context.js";

export function registerListConfig(program: Command, context: CliContext): void {
  program
    .command("list-config")
    .description("list the keys stored under a config type, one per line")
    .requiredOption("-t, --type <type>", "config type")
    .action(async (opts: { type: string }, command: Command) => {
      for (const key of await context.config(command).list(opts.type)) context.print(key);
    });
}
