import { ConfigType, ToolSourceDescriptor } from "@toolmesh/schema";
import type { Command } from "commander";
import type { CliContext } from "../context.js";
import { check } from "../descriptors.js";
import { formatTable, prettyJson } from "../format.js";
import { RegistryClient } from "../registry-client.js";

/** `tg set-tool-source`, `show-tool-sources`, `delete-tool-source`: manifest URLs the registry reads. */
export function registerToolSourceCommands(program: Command, context: CliContext): void {
  program
    .command("set-tool-source")
    .description("store a tool source: a URL whose GET returns a tool manifest (config type tool-source)")
    .requiredOption("--id <id>", "source id (config key)")
    .requiredOption("--manifest-url <url>", "http(s) URL of the manifest, e.g. http://host:8702/tools/manifest")
    .option("--inactive", "store it switched off (the registry skips it)")
    .action(async (opts: { id: string; manifestUrl: string; inactive?: boolean }, command: Command) => {
      const descriptor = { id: opts.id, manifest_url: opts.manifestUrl, active: !opts.inactive };
      check(ToolSourceDescriptor, descriptor, "tool-source descriptor");
      await context.config(command).put(ConfigType.toolSource, opts.id, JSON.stringify(descriptor));
    });

  program
    .command("show-tool-sources")
    .description("list tool sources with the registry's last status for each")
    .option("--json", "print as JSON")
    .action(async (opts: { json?: boolean }, command: Command) => {
      const stored = await context.config(command).values(ConfigType.toolSource);
      const { sources } = await new RegistryClient(context.gateway(command)).call({ operation: "sources" });
      const rows = stored.map(({ key, value }) => {
        const parsed = ToolSourceDescriptor.safeParse(safeJson(value));
        const status = sources.find((s) => s.source === `source:${key}`);
        return {
          id: key,
          manifest_url: parsed.success ? parsed.data.manifest_url : "(invalid descriptor)",
          active: parsed.success ? parsed.data.active : false,
          status: status?.status ?? "not yet read",
          tools: status?.tool_count ?? 0,
          reason: status?.reason ?? null,
          last_success_at: status?.last_success_at ?? null,
        };
      });
      if (opts.json) return context.print(prettyJson(rows));
      context.print(
        formatTable(
          ["id", "manifest_url", "active", "status", "tools", "reason"],
          rows.map((r) => [r.id, r.manifest_url, String(r.active), r.status, String(r.tools), r.reason ?? ""]),
        ),
      );
    });

  program
    .command("delete-tool-source")
    .description("remove a tool source (its tools leave the catalog at the next refresh)")
    .requiredOption("--id <id>", "source id")
    .action(async (opts: { id: string }, command: Command) => {
      await context.config(command).delete(ConfigType.toolSource, opts.id);
    });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
