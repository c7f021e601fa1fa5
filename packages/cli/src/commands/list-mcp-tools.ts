import { ServiceName } from "@toolmesh/schema";
import type { Command } from "commander";
import { z } from "zod";
import type { CliContext } from "../context.js";
import { CliError } from "../errors.js";
import { formatTable, prettyJson } from "../format.js";
import { parseReply } from "../gateway.js";

// The gateway answers `object` decoded (TrustGraph's translator); a peer's JSON string is decoded here.
const ListReply = z.object({ object: z.unknown().optional() });
const ListedTools = z.array(z.object({ name: z.string(), description: z.string().default(""), inputSchema: z.unknown() }));

/** `tg list-mcp-tools ID`: what the MCP server behind an `mcp` entry offers (its tools/list). */
export function registerListMcpTools(program: Command, context: CliContext): void {
  program
    .command("list-mcp-tools")
    .description("list the tools of the MCP server behind an mcp entry (asks the server through the mcp-tool service)")
    .argument("<id>", "key of an mcp config entry")
    .option("--json", "print the tools with their input schemas as JSON")
    .action(async (id: string, opts: { json?: boolean }, command: Command) => {
      const body = { name: id, parameters: "{}", operation: "list-tools" };
      const reply = parseReply(ListReply, await context.gateway(command).call(ServiceName.mcpTool, body), ServiceName.mcpTool);
      const object = typeof reply.object === "string" ? JSON.parse(reply.object) : reply.object;
      const tools = ListedTools.safeParse(object);
      if (!tools.success) throw new CliError(`the mcp-tool service did not send a tool list for '${id}'`);
      if (opts.json) return context.print(prettyJson(tools.data));
      context.print(
        formatTable(
          ["name", "description"],
          tools.data.map((t) => [t.name, t.description]),
        ),
      );
    });
}
