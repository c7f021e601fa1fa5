import type { CatalogRevision } from "@toolmesh/schema";
import type { Command } from "commander";
import type { CliContext } from "../context.js";
import { CliError } from "../errors.js";
import { formatTable, prettyJson } from "../format.js";
import { positiveInt } from "../options.js";
import { RegistryClient } from "../registry-client.js";

interface JsonFlag {
  json?: boolean;
}

function printRevision(context: CliContext, revision: CatalogRevision | null, json: boolean | undefined): void {
  if (!revision) throw new CliError("the registry has no catalog revision yet");
  if (json) return context.print(prettyJson(revision));
  context.print(
    `revision ${revision.revision_number} (${revision.content_hash}), ${revision.tool_count} tools, created ${revision.created_at}`,
  );
  context.print(
    formatTable(
      ["name", "source", "hash", "description"],
      revision.tools.map((t) => [t.name, t.source, t.content_hash.slice(0, 12), t.description]),
    ),
  );
}

/** `tg show-catalog`, `show-revision`, `list-revisions`, `diff-revisions`, `refresh-tools`: the registry's view. */
export function registerCatalogCommands(program: Command, context: CliContext): void {
  const registry = (command: Command) => new RegistryClient(context.gateway(command));

  program
    .command("show-catalog")
    .description("print the current catalog revision: the tools the agent offers")
    .option("--json", "print the revision as JSON")
    .action(async (opts: JsonFlag, command: Command) => {
      printRevision(context, (await registry(command).call({ operation: "current" })).revision, opts.json);
    });

  program
    .command("show-revision")
    .description("print one catalog revision, byte for byte as runs pinned to it saw it")
    .argument("<n>", "the revision number")
    .option("--json", "print the revision as JSON")
    .action(async (n: string, opts: JsonFlag, command: Command) => {
      const revision_number = positiveInt("revision", n);
      printRevision(context, (await registry(command).call({ operation: "get-revision", revision_number })).revision, opts.json);
    });

  program
    .command("list-revisions")
    .description("list catalog revisions, newest first")
    .option("-n, --limit <n>", "how many", "20")
    .option("--json", "print as JSON")
    .action(async (opts: JsonFlag & { limit: string }, command: Command) => {
      const { revisions } = await registry(command).call({ operation: "list-revisions", limit: positiveInt("--limit", opts.limit) });
      if (opts.json) return context.print(prettyJson(revisions));
      context.print(
        formatTable(
          ["revision", "tools", "created", "hash"],
          revisions.map((r) => [String(r.revision_number), String(r.tool_count), r.created_at, r.content_hash]),
        ),
      );
    });

  program
    .command("diff-revisions")
    .description("which tools were added, removed or changed between two revisions")
    .argument("<from>", "the older revision number")
    .argument("<to>", "the newer revision number")
    .option("--json", "print as JSON")
    .action(async (from: string, to: string, opts: JsonFlag, command: Command) => {
      const { diff } = await registry(command).call({
        operation: "diff",
        from_revision: positiveInt("from", from),
        to_revision: positiveInt("to", to),
      });
      if (!diff) throw new CliError("the registry sent no diff");
      if (opts.json) return context.print(prettyJson(diff));
      const rows = [
        ...diff.added.map((name) => ["+", name]),
        ...diff.removed.map((name) => ["-", name]),
        ...diff.changed.map((name) => ["~", name]),
      ];
      context.print(
        `revision ${diff.from_revision} -> ${diff.to_revision}: ${diff.added.length} added, ${diff.removed.length} removed, ${diff.changed.length} changed`,
      );
      if (rows.length > 0) context.print(formatTable(["", "tool"], rows));
    });

  program
    .command("refresh-tools")
    .description("make the registry refresh now (config, tool sources, announcements); prints the outcome")
    .option("--json", "print as JSON")
    .action(async (opts: JsonFlag, command: Command) => {
      const reply = await registry(command).call({ operation: "refresh" });
      if (opts.json)
        return context.print(
          prettyJson({
            revision: reply.revision && { ...reply.revision, tools: undefined },
            created: reply.created,
            sources: reply.sources,
          }),
        );
      const revision = reply.revision;
      context.print(
        revision
          ? `${reply.created ? "new" : "unchanged"} revision ${revision.revision_number} (${revision.content_hash}), ${revision.tool_count} tools`
          : "no revision (the catalog is empty)",
      );
      if (reply.sources.length > 0) {
        context.print(
          formatTable(
            ["source", "status", "tools", "reason"],
            reply.sources.map((s) => [s.source, s.status, String(s.tool_count), s.reason ?? ""]),
          ),
        );
      }
    });
}
