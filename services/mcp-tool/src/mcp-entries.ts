import type { ParsedItems } from "@toolmesh/base";
import type { McpDescriptor } from "@toolmesh/schema";
import { resolveServer } from "./server-config.js";

export type McpEntryLookup = { descriptor: McpDescriptor } | { problem: string } | undefined;

/** The `mcp` config entries as last loaded: valid ones by key, and why each invalid one was refused. */
export class McpEntries {
  private valid = new Map<string, McpDescriptor>();
  private invalid = new Map<string, string>();

  replace(parsed: ParsedItems<McpDescriptor>): void {
    this.valid = parsed.items;
    this.invalid = new Map(parsed.invalid.map(({ key, reason }) => [key, reason]));
  }

  get(name: string): McpEntryLookup {
    const descriptor = this.valid.get(name);
    if (descriptor) return { descriptor };
    const problem = this.invalid.get(name);
    return problem === undefined ? undefined : { problem };
  }

  /** The session keys the entries use now; an entry whose secrets do not resolve uses none. */
  sessionKeys(env: NodeJS.ProcessEnv): Set<string> {
    const keys = new Set<string>();
    for (const [name, descriptor] of this.valid) {
      try {
        keys.add(resolveServer(name, descriptor, env).key);
      } catch {
        // Reported to the caller on its next call; nothing to keep open for it meanwhile.
      }
    }
    return keys;
  }
}
