import { ConfigType, ToolDescriptor, ToolServiceDescriptor, toolServiceConfig } from "@toolmesh/schema";
import type { Command } from "commander";
import type { CliContext } from "../context.js";
import { readStored } from "../descriptors.js";
import { CliError } from "../errors.js";
import { invokeMcpTool, invokeToolService } from "../invocations.js";
import { parseJsonObject } from "../options.js";

/** The values a tool sends its service; a missing required one is the user's error to fix, not a crash. */
function configValues(tool: Record<string, unknown> & { name: string }, service: ToolServiceDescriptor) {
  try {
    return toolServiceConfig(tool, service);
  } catch (err) {
    throw new CliError((err as Error).message);
  }
}

export function registerInvokeTool(program: Command, context: CliContext): void {
  program
    .command("invoke-tool")
    .description("run a configured tool (tool-service or mcp-tool) as the agent would and print its result")
    .requiredOption("-n, --name <tool-id>", "tool id (config key)")
    .option("-a, --arguments <json>", "the tool's arguments as a JSON object", "{}")
    .option("-u, --user <user>", "user sent to a tool service", "")
    .action(async (opts: { name: string; arguments: string; user: string }, command: Command) => {
      const args = parseJsonObject("-a/--arguments", opts.arguments);
      const config = context.config(command);
      const gateway = context.gateway(command);
      const tool = readStored(ToolDescriptor, await config.get(ConfigType.tool, opts.name), `tool '${opts.name}'`);
      let output: string | undefined;
      if (tool.type === "tool-service") {
        const service = readStored(
          ToolServiceDescriptor,
          await config.get(ConfigType.toolService, tool.service),
          `tool-service '${tool.service}'`,
        );
        const values = configValues(tool, service);
        output = await invokeToolService(gateway, tool.service, { user: opts.user, config: values, arguments: args });
      } else if (tool.type === "mcp-tool") {
        output = await invokeMcpTool(gateway, tool["mcp-tool"], args);
      } else {
        throw new CliError(`tool '${opts.name}' is a ${tool.type} tool: only the agent can run it`);
      }
      if (output !== undefined) context.print(output);
    });
}
