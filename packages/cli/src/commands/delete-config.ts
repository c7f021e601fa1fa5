import type { Command } from "commander";
import type { CliContext } from "../context.js";

export function registerDeleteConfig(program: Command, context: CliContext): void {
  program
    .command("delete-config")
    .description("delete a config value")
    .requiredOption("-t, --type <type>", "config type")
    .requiredOption("-k, --key <key>", "key within the type")
    .action(async (opts: { type: string; key: string }, command: Command) => {
      await context.config(command).delete(opts.type, opts.key);
    });
}
