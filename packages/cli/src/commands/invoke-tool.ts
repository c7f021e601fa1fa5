import { ConfigType, ToolDescriptor, ToolServiceDescriptor, toolServiceConfig } from "@toolmesh/schema";
import type { Command } from "commander";
import { invokeCatalogTool } from "../catalog-invoke.js";
import type { CliContext } from "../context.js";
import { readStored } from "../descriptors.js";
import { CliError } from "../errors.js";
import { invokeMcpTool, invokeToolService } from "../invocations.js";
import { parseJsonObject } from "../options.js";
import { RegistryClient } from "../registry-client.js";

interface InvokeFlags {
  name: string;
  arguments: string;
  user: string;
}

/** The values a tool sends its service; a missing required one is the user's error to fix, not a crash. */
function configValues(tool: Record<string, unknown> & { name: string }, service: ToolServiceDescriptor) {
  try {
    return toolServiceConfig(tool, service);
  } catch (err) {
    throw new CliError((err as Error).message);
  }
}

/** A tool from config: its tool service through the gateway, or the MCP-tool gateway. */
async function invokeConfigured(context: CliContext, command: Command, stored: string, opts: InvokeFlags, args: Record<string, unknown>) {
  const config = context.config(command);
  const gateway = context.gateway(command);
  const tool = readStored(ToolDescriptor, stored, `tool '${opts.name}'`);
  if (tool.type === "tool-service") {
    const service = readStored(
      ToolServiceDescriptor,
      await config.get(ConfigType.toolService, tool.service),
      `tool-service '${tool.service}'`,
    );
    return invokeToolService(gateway, tool.service, { user: opts.user, config: configValues(tool, service), arguments: args });
  }
  if (tool.type === "mcp-tool") return invokeMcpTool(gateway, tool["mcp-tool"], args);
  throw new CliError(`tool '${opts.name}' is a ${tool.type} tool: only the agent can run it`);
}

/** A tool only the catalog has (a tool service announced it): called through the MCP endpoint. */
async function invokeFromCatalog(context: CliContext, command: Command, name: string, args: Record<string, unknown>) {
  let names: string[];
  try {
    const { revision } = await new RegistryClient(context.gateway(command)).call({ operation: "current" });
    names = revision?.tools.map((t) => t.name) ?? [];
  } catch (err) {
    throw new CliError(`no tool '${name}' in config, and the catalog could not be read: ${(err as Error).message}`);
  }
  if (!names.includes(name)) throw new CliError(`no tool '${name}' in config or in the catalog`);
  return invokeCatalogTool(context.mcpEndpoint(), name, args);
}

export function registerInvokeTool(program: Command, context: CliContext): void {
  program
    .command("invoke-tool")
    .description(
      "run a tool as the agent would and print its result: a configured tool (tool-service or mcp-tool), else a catalog tool by name (through the MCP endpoint)",
    )
    .requiredOption("-n, --name <tool-id>", "tool id (config key), or a catalog tool's name")
    .option("-a, --arguments <json>", "the tool's arguments as a JSON object", "{}")
    .option("-u, --user <user>", "user sent to a tool service (configured tools)", "")
    .action(async (opts: InvokeFlags, command: Command) => {
      const args = parseJsonObject("-a/--arguments", opts.arguments);
      const stored = await context.config(command).find(ConfigType.tool, opts.name);
      const output =
        stored === undefined
          ? await invokeFromCatalog(context, command, opts.name, args)
          : await invokeConfigured(context, command, stored, opts, args);
      if (output !== undefined) context.print(output);
    });
}
