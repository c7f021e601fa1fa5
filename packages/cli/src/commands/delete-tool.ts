import { ConfigType } from "@toolmesh/schema";
import type { Command } from "commander";
import type { CliContext } from "../context.js";

export function registerDeleteTool(program: Command, context: CliContext): void {
  program
    .command("delete-tool")
    .description("delete a tool descriptor")
    .requiredOption("--id <id>", "tool id")
    .action(async (opts: { id: string }, command: Command) => {
      await context.config(command).delete(ConfigType.tool, opts.id);
    });
}
