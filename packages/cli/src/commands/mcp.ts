import type { Command } from "commander";
import type { CliContext } from "../context.js";
import { runMcpBridge } from "../mcp-bridge.js";

export function registerMcp(program: Command, context: CliContext): void {
  program
    .command("mcp")
    .description("run an MCP stdio server that forwards to toolmesh's MCP endpoint (for clients that only speak stdio)")
    .option("-u, --url <url>", "the MCP endpoint, e.g. http://host:8706/mcp?revision=latest (default: TG_MCP_URL)")
    .action(async (opts: { url?: string }) => {
      const { url, token } = context.mcpEndpoint(opts.url);
      await runMcpBridge({ url, token, log: (line) => context.warn(line) });
    });
}
