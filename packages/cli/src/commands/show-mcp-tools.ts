import { ConfigType } from "@toolmesh/schema";
import type { Command } from "commander";
import type { CliContext } from "../context.js";
import { MCP_COLUMNS, formatTable, mcpRows, prettyJson } from "../format.js";

export function registerShowMcpTools(program: Command, context: CliContext): void {
  program
    .command("show-mcp-tools")
    .description("list the remote MCP tools (tokens are not printed)")
    .option("--json", "print as JSON (the same columns; tokens are still not printed)")
    .action(async (opts: { json?: boolean }, command: Command) => {
      const rows = mcpRows(await context.config(command).values(ConfigType.mcp));
      if (opts.json)
        return context.print(prettyJson(rows.map((row) => Object.fromEntries(MCP_COLUMNS.map((column, i) => [column, row[i]])))));
      context.print(formatTable(MCP_COLUMNS, rows));
    });
}
