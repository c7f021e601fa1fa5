import { ConfigType } from "@toolmesh/schema";
import type { Command } from "commander";
import type { CliContext } from "../context.js";
import { MCP_COLUMNS, formatTable, mcpRows } from "../format.js";

export function registerShowMcpTools(program: Command, context: CliContext): void {
  program
    .command("show-mcp-tools")
    .description("list the remote MCP tools (tokens are not printed)")
    .action(async (_opts: unknown, command: Command) => {
      context.print(formatTable(MCP_COLUMNS, mcpRows(await context.config(command).values(ConfigType.mcp))));
    });
}
