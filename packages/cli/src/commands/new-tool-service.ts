import { join, relative } from "node:path";
import type { Command } from "commander";
import type { CliContext } from "../context.js";
import { CliError } from "../errors.js";
import { positiveInt } from "../options.js";
import { scaffoldToolService, workspaceRoot } from "../scaffold.js";

interface NewToolServiceFlags {
  dir?: string;
  port?: string;
  topic?: string;
}

export function registerNewToolService(program: Command, context: CliContext): void {
  program
    .command("new-tool-service")
    .description("create a tool service package services/NAME (env, main, one tool made with defineTool, a test) that `npm run up` starts")
    .argument("<name>", "service name, e.g. weather (also its tool's name and its topic)")
    .option("--dir <dir>", "the folder of service packages (default: services/ of the workspace around the current folder)")
    .option("--port <port>", "its HTTP port (default: the first from 8710 no other service uses)")
    .option("--topic <topic>", "its topic name (default: the service name)")
    .action((name: string, opts: NewToolServiceFlags) => {
      const port = opts.port === undefined ? undefined : positiveInt("--port", opts.port);
      if (port !== undefined && port > 65_535) throw new CliError(`--port ${port} is not a port`);
      const servicesDir = opts.dir ?? join(workspaceRoot(process.cwd()), "services");
      const made = scaffoldToolService({
        name,
        servicesDir,
        ...(port !== undefined ? { port } : {}),
        ...(opts.topic ? { topic: opts.topic } : {}),
      });
      const shown = relative(process.cwd(), made.dir) || ".";
      context.print(`created ${shown}: tool '${made.tool}' on topic '${made.topic}', HTTP port ${made.port}`);
      for (const file of made.files) context.print(`  ${file}`);
      context.print(
        [
          "next:",
          "  bash scripts/pnpm.sh install   # links it into the workspace (records it in pnpm-lock.yaml)",
          "  npm run up                     # builds and starts it with the rest; it announces its tool to the catalog",
          `  npm run tg -- invoke-tool -n ${made.tool} -a '{"name": "Ada"}'`,
        ].join("\n"),
      );
    });
}
