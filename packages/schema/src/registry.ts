import { z } from "zod";
import { NullableWireError } from "./errors.js";
import { ManifestEntry } from "./manifest.js";

export const RegistryOperation = z.enum(["current", "get-revision", "list-revisions", "diff", "refresh", "sources"]);

export const ToolRegistryRequest = z.object({
  operation: RegistryOperation,
  revision_number: z.number().int().positive().optional(),
  content_hash: z.string().optional(),
  from_revision: z.number().int().positive().optional(),
  to_revision: z.number().int().positive().optional(),
  limit: z.number().int().positive().max(1000).default(100),
});
export type ToolRegistryRequest = z.output<typeof ToolRegistryRequest>;
export type ToolRegistryRequestWire = z.input<typeof ToolRegistryRequest>;

/** A catalog tool: a manifest entry plus where it came from and its own content hash. */
export const CatalogTool = ManifestEntry.extend({
  source: z.string(),
  content_hash: z.string(),
});
export type CatalogTool = z.output<typeof CatalogTool>;

export const RevisionSummary = z.object({
  revision_number: z.number().int().positive(),
  content_hash: z.string(),
  created_at: z.string(),
  tool_count: z.number().int().nonnegative(),
});
export type RevisionSummary = z.output<typeof RevisionSummary>;

export const CatalogRevision = RevisionSummary.extend({ tools: z.array(CatalogTool) });
export type CatalogRevision = z.output<typeof CatalogRevision>;

export const CatalogDiff = z.object({
  from_revision: z.number().int(),
  to_revision: z.number().int(),
  added: z.array(z.string()),
  removed: z.array(z.string()),
  changed: z.array(z.string()),
});
export type CatalogDiff = z.output<typeof CatalogDiff>;

export const SourceStatus = z.object({
  source: z.string(),
  status: z.enum(["ok", "degraded"]),
  reason: z.string().nullable(),
  tool_count: z.number().int().nonnegative(),
  last_success_at: z.string().nullable(),
  /**
   * Entries of the source that are fine but not for toolmesh's catalog, each with the reason — e.g. config
   * tools of TrustGraph-only types (`tool 'kq': type 'knowledge-query' is ...`). They do not degrade it.
   */
  left_out: z.array(z.string()).default([]),
});
export type SourceStatus = z.output<typeof SourceStatus>;

export const ToolRegistryResponse = z.object({
  error: NullableWireError,
  revision: CatalogRevision.nullable().default(null),
  revisions: z.array(RevisionSummary).default([]),
  diff: CatalogDiff.nullable().default(null),
  sources: z.array(SourceStatus).default([]),
  /** For refresh: whether it created a new revision. */
  created: z.boolean().nullable().default(null),
});
export type ToolRegistryResponse = z.output<typeof ToolRegistryResponse>;

/** Pushed on `notify/tool-registry` when a revision is created. */
export const ToolRegistryPush = RevisionSummary;
export type ToolRegistryPush = RevisionSummary;

/** A tool service announcing its own manifest on the persistent announcement topic at start-up. */
export const ToolAnnouncement = z.object({
  service_id: z.string().min(1),
  manifest: z.array(ManifestEntry),
  announced_at: z.string(),
});
export type ToolAnnouncement = z.output<typeof ToolAnnouncement>;
