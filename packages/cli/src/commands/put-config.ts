import type { Command } from "commander";
import type { CliContext } from "../context.js";
import { checkConfigValue } from "../descriptors.js";
import { parseJson } from "../options.js";

export function registerPutConfig(program: Command, context: CliContext): void {
  program
    .command("put-config")
    .description("store a JSON value under a config type and key (tool, tool-service and mcp values are validated)")
    .requiredOption("-t, --type <type>", "config type, e.g. tool, tool-service, mcp")
    .requiredOption("-k, --key <key>", "key within the type")
    .requiredOption("-v, --value <json>", "the value, as JSON")
    .action(async (opts: { type: string; key: string; value: string }, command: Command) => {
      const value = parseJson("-v/--value", opts.value);
      checkConfigValue(opts.type, value);
      await context.config(command).put(opts.type, opts.key, JSON.stringify(value));
    });
}
