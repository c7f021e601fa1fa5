import { ConfigType } from "@toolmesh/schema";
import type { Command } from "commander";
import type { CliContext } from "../context.js";
import { buildMcpDescriptor, type McpFlags } from "../descriptors.js";
import { collect } from "../options.js";

export function registerSetMcpTool(program: Command, context: CliContext): void {
  program
    .command("set-mcp-tool")
    .description("store a remote MCP tool (config type mcp, key = id)")
    .requiredOption("--id <id>", "mcp tool id (config key)")
    .requiredOption("--url <url>", "the MCP server's http(s) URL")
    .option("--remote-name <name>", "the tool's name on the server, when it differs from the id")
    .option("--auth-token <token>", "sent as a bearer token to the server")
    .option("--oauth2-client-id <id>", "OAuth 2 client credentials for a server that asks for them (with --oauth2-client-secret)")
    .option("--oauth2-client-secret <secret>", "its secret; best as ${env:NAME}, set for the mcp-tool service")
    .option("--oauth2-scope <scope>", "space-separated scopes to ask for")
    .option("--oauth2-issuer <url>", "the only authorization server the credentials may be sent to")
    .option("--transport <mode>", "streamable-http, sse, or auto (Streamable HTTP, falling back to SSE)", "auto")
    .option("--header <key=value>", "an extra HTTP header; values may use ${env:NAME} (repeatable)", collect)
    .action(async (opts: McpFlags & { id: string }, command: Command) => {
      const descriptor = buildMcpDescriptor(opts);
      await context.config(command).put(ConfigType.mcp, opts.id, JSON.stringify(descriptor));
    });
}
