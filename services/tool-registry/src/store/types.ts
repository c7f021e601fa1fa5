import type { CatalogRevision, CatalogTool, ManifestEntry, RevisionSummary, SourceStatus } from "@toolmesh/schema";

/**
 * Registry state: immutable catalog revisions, the last good tools of each source (so a source that fails
 * after a restart still keeps its tools), source statuses, and the latest announcement of each tool
 * service. Implementations: SQLite (one process, the embedded default) and PostgreSQL (DATABASE_URL, any
 * number of replicas, all serving the same current revision).
 */
export interface RegistryStore {
  /** Where the state lives, for the start-up log (never a password). */
  readonly location: string;
  /** The newest revision, as stored now (another replica may have made it). */
  latest(): Promise<CatalogRevision | null>;
  byNumber(revisionNumber: number): Promise<CatalogRevision | null>;
  /** The newest revision with this hash (a catalog can return to an earlier set). */
  byHash(contentHash: string): Promise<CatalogRevision | null>;
  list(limit: number): Promise<RevisionSummary[]>;
  /** Appends the next revision (number = newest + 1). Only inside exclusive(), so numbers never repeat. */
  append(contentHash: string, tools: CatalogTool[]): Promise<CatalogRevision>;
  lastGoodEntries(source: string): Promise<ManifestEntry[]>;
  /** `leftOut`: entries that are fine but not for the catalog, with why (they do not degrade the source). */
  recordSuccess(source: string, entries: ManifestEntry[], problems: string[], leftOut?: string[]): Promise<void>;
  /** Keeps the last good entries; only the status and reason change. */
  recordFailure(source: string, reason: string): Promise<void>;
  statuses(): Promise<SourceStatus[]>;
  forgetSourcesExcept(keep: readonly string[]): Promise<void>;
  /**
   * Records a service's latest announcement, timed by the registry's clock (not the sender's). Returns
   * whether its tools changed: a heartbeat with the same manifest only refreshes the time.
   */
  saveAnnouncement(serviceId: string, manifest: ManifestEntry[]): Promise<boolean>;
  /** Announcements heard since `since` (older ones belong to services that stopped announcing). */
  announcements(since: Date): Promise<Array<{ service_id: string; manifest: ManifestEntry[] }>>;
  /** Runs `work` (a refresh) while no other holder of the store — in this process or another replica — runs one. */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** A revision as both stores keep it: the tools as JSON text, exactly as hashed and served. */
export interface RevisionRow {
  revision_number: number;
  content_hash: string;
  created_at: string;
  tool_count: number;
  tools?: string;
}

export function toRevision(row: RevisionRow): CatalogRevision {
  return {
    revision_number: row.revision_number,
    content_hash: row.content_hash,
    created_at: row.created_at,
    tool_count: row.tool_count,
    tools: JSON.parse(row.tools ?? "[]") as CatalogTool[],
  };
}
