import { ConfigType } from "@toolmesh/schema";
import type { Command } from "commander";
import type { CliContext } from "../context.js";

export function registerDeleteMcpTool(program: Command, context: CliContext): void {
  program
    .command("delete-mcp-tool")
    .description("delete a remote MCP tool")
    .requiredOption("--id <id>", "mcp tool id")
    .action(async (opts: { id: string }, command: Command) => {
      await context.config(command).delete(ConfigType.mcp, opts.id);
    });
}
