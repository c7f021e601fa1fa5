import { ConfigType } from "@toolmesh/schema";
import type { Command } from "commander";
import type { CliContext } from "../context.js";
import { TOOL_COLUMNS, formatTable, toolRows } from "../format.js";

export function registerShowTools(program: Command, context: CliContext): void {
  program
    .command("show-tools")
    .description("list the tool descriptors")
    .action(async (_opts: unknown, command: Command) => {
      context.print(formatTable(TOOL_COLUMNS, toolRows(await context.config(command).values(ConfigType.tool))));
    });
}
