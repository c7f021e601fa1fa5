import { ConfigType } from "@toolmesh/schema";
import type { Command } from "commander";
import type { CliContext } from "../context.js";
import { buildToolServiceDescriptor, type ToolServiceFlags } from "../descriptors.js";
import { collect } from "../options.js";

export function registerSetToolService(program: Command, context: CliContext): void {
  program
    .command("set-tool-service")
    .description("store a tool-service descriptor (config type tool-service, key = id)")
    .requiredOption("--id <id>", "tool-service id, e.g. joke-service")
    .option("--topic <name>", "topic name; requests go to non-persistent://tg/request/<name>")
    .option("--request-queue <topic>", "full request topic (TrustGraph form; needs --response-queue)")
    .option("--response-queue <topic>", "full response topic")
    .option("--config-param <name[:required]>", "a config value the service accepts (repeatable)", collect)
    .action(async (opts: ToolServiceFlags, command: Command) => {
      const descriptor = buildToolServiceDescriptor(opts);
      await context.config(command).put(ConfigType.toolService, opts.id, JSON.stringify(descriptor));
    });
}
