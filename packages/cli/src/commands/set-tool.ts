import { ConfigType } from "@toolmesh/schema";
import { type Command, Option } from "commander";
import type { CliContext } from "../context.js";
import { buildToolDescriptor, type ToolFlags } from "../descriptors.js";
import { collect } from "../options.js";

export function registerSetTool(program: Command, context: CliContext): void {
  program
    .command("set-tool")
    .description("store a tool descriptor (config type tool, key = id)")
    .requiredOption("--id <id>", "tool id (config key)")
    .requiredOption("--name <name>", "the name the LLM sees")
    .addOption(
      new Option("--type <type>", "what runs the tool").choices(["tool-service", "mcp-tool", "text-completion"]).makeOptionMandatory(),
    )
    .requiredOption("--description <text>", "what the tool does, for the LLM")
    .option("--service <service-id>", "tool-service id (for --type tool-service)")
    .option("--mcp-tool <key>", "key of an mcp config entry (for --type mcp-tool)")
    .option("--argument <name:type:description>", "an argument the tool takes (repeatable)", collect)
    .option("--config <key=value>", "a value for one of the service's config-params (repeatable)", collect)
    .action(async (opts: ToolFlags & { id: string }, command: Command) => {
      const descriptor = buildToolDescriptor(opts);
      await context.config(command).put(ConfigType.tool, opts.id, JSON.stringify(descriptor));
    });
}
