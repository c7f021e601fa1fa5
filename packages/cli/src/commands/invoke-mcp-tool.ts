import type { Command } from "commander";
import type { CliContext } from "../context.js";
import { invokeMcpTool } from "../invocations.js";
import { parseJsonObject } from "../options.js";

export function registerInvokeMcpTool(program: Command, context: CliContext): void {
  program
    .command("invoke-mcp-tool")
    .description("call an MCP tool through the mcp-tool service; prints its text, or its object as pretty JSON")
    .requiredOption("-n, --name <name>", "key of an mcp config entry")
    .option("-P, --parameters <json>", "the tool's parameters as a JSON object", "{}")
    .action(async (opts: { name: string; parameters: string }, command: Command) => {
      const parameters = parseJsonObject("-P/--parameters", opts.parameters);
      const output = await invokeMcpTool(context.gateway(command), opts.name, parameters);
      if (output !== undefined) context.print(output);
    });
}
