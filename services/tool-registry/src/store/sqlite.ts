import { makeFolder } from "@toolmesh/base";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { CatalogRevision, CatalogTool, ManifestEntry, RevisionSummary, SourceStatus } from "@toolmesh/schema";
import { Turns } from "./turns.js";
import { type RegistryStore, type RevisionRow, toRevision } from "./types.js";

/** The exclusive() queue of each file. */
const turns = new Map<string, Turns>();

/**
 * Registry state in a SQLite file (the embedded default, one process): immutable revisions (a trigger
 * refuses any update or delete), source states and announcements. better-sqlite3 is synchronous: each
 * method does its work at once and hands back a settled promise.
 */
export class SqliteRegistryStore implements RegistryStore {
  private readonly db: Database.Database;
  /** Revisions never change: the newest one read is kept parsed while it stays the newest. */
  private newest: CatalogRevision | null = null;

  constructor(readonly location: string) {
    this.db = new Database(location);
    this.db.pragma("journal_mode = WAL");
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS revisions (
        revision_number INTEGER PRIMARY KEY, content_hash TEXT NOT NULL, created_at TEXT NOT NULL,
        tool_count INTEGER NOT NULL, tools TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS revisions_by_hash ON revisions (content_hash);
      CREATE TRIGGER IF NOT EXISTS revisions_no_update BEFORE UPDATE ON revisions
        BEGIN SELECT RAISE(ABORT, 'catalog revisions are immutable'); END;
      CREATE TRIGGER IF NOT EXISTS revisions_no_delete BEFORE DELETE ON revisions
        BEGIN SELECT RAISE(ABORT, 'catalog revisions are immutable'); END;
      CREATE TABLE IF NOT EXISTS sources (
        source TEXT PRIMARY KEY, entries TEXT NOT NULL, status TEXT NOT NULL, reason TEXT,
        last_success_at TEXT
      );
      CREATE TABLE IF NOT EXISTS announcements (
        service_id TEXT PRIMARY KEY, manifest TEXT NOT NULL, announced_at TEXT NOT NULL
      );
    `);
    // Added with left_out (issue 14); a database from before gets the column, empty.
    const columns = (this.db.prepare("PRAGMA table_info(sources)").all() as Array<{ name: string }>).map((c) => c.name);
    if (!columns.includes("left_out")) this.db.exec("ALTER TABLE sources ADD COLUMN left_out TEXT NOT NULL DEFAULT '[]'");
  }

  static open(dir: string): SqliteRegistryStore {
    makeFolder(dir);
    return new SqliteRegistryStore(join(dir, "tool-registry.db"));
  }

  async latest(): Promise<CatalogRevision | null> {
    // The newest number is one index lookup; the revision is parsed again only when it changed.
    const { top } = this.db.prepare("SELECT max(revision_number) AS top FROM revisions").get() as { top: number | null };
    if (top === null) return null;
    if (this.newest?.revision_number !== top) this.newest = await this.byNumber(top);
    return this.newest;
  }

  async byNumber(revisionNumber: number): Promise<CatalogRevision | null> {
    const row = this.db.prepare("SELECT * FROM revisions WHERE revision_number = ?").get(revisionNumber) as RevisionRow | undefined;
    return row ? toRevision(row) : null;
  }

  /** The newest revision with this hash (a catalog can return to an earlier set). */
  async byHash(contentHash: string): Promise<CatalogRevision | null> {
    const row = this.db.prepare("SELECT * FROM revisions WHERE content_hash = ? ORDER BY revision_number DESC LIMIT 1").get(contentHash) as
      RevisionRow | undefined;
    return row ? toRevision(row) : null;
  }

  async list(limit: number): Promise<RevisionSummary[]> {
    return this.db
      .prepare("SELECT revision_number, content_hash, created_at, tool_count FROM revisions ORDER BY revision_number DESC LIMIT ?")
      .all(limit) as RevisionSummary[];
  }

  /** Appends the next revision. */
  async append(contentHash: string, tools: CatalogTool[]): Promise<CatalogRevision> {
    const createdAt = new Date().toISOString();
    const info = this.db
      .prepare("INSERT INTO revisions (content_hash, created_at, tool_count, tools) VALUES (?, ?, ?, ?)")
      .run(contentHash, createdAt, tools.length, JSON.stringify(tools));
    this.newest = {
      revision_number: Number(info.lastInsertRowid),
      content_hash: contentHash,
      created_at: createdAt,
      tool_count: tools.length,
      tools,
    };
    return this.newest;
  }

  async lastGoodEntries(source: string): Promise<ManifestEntry[]> {
    const row = this.db.prepare("SELECT entries FROM sources WHERE source = ?").get(source) as { entries: string } | undefined;
    return row ? (JSON.parse(row.entries) as ManifestEntry[]) : [];
  }

  /** `leftOut`: entries that are fine but not for the catalog, with why (they do not degrade the source). */
  async recordSuccess(source: string, entries: ManifestEntry[], problems: string[], leftOut: string[] = []): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO sources (source, entries, status, reason, last_success_at, left_out) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (source) DO UPDATE SET entries = excluded.entries, status = excluded.status, reason = excluded.reason,
         last_success_at = excluded.last_success_at, left_out = excluded.left_out`,
      )
      .run(
        source,
        JSON.stringify(entries),
        problems.length ? "degraded" : "ok",
        problems.join("; ") || null,
        new Date().toISOString(),
        JSON.stringify(leftOut),
      );
  }

  /** Keeps the last good entries; only the status and reason change. */
  async recordFailure(source: string, reason: string): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO sources (source, entries, status, reason) VALUES (?, '[]', 'degraded', ?)
         ON CONFLICT (source) DO UPDATE SET status = 'degraded', reason = excluded.reason`,
      )
      .run(source, reason);
  }

  async statuses(): Promise<SourceStatus[]> {
    // Counted by SQLite in place: parsing every source's entries (megabytes at 10k tools) only to count them
    // would cost more than the refresh itself.
    const rows = this.db
      .prepare(
        "SELECT source, status, reason, json_array_length(entries) AS tool_count, last_success_at, left_out FROM sources ORDER BY source",
      )
      .all() as Array<Omit<SourceStatus, "left_out"> & { left_out: string }>;
    return rows.map((row) => ({ ...row, left_out: JSON.parse(row.left_out) as string[] }));
  }

  async forgetSourcesExcept(keep: readonly string[]): Promise<void> {
    const all = (this.db.prepare("SELECT source FROM sources").all() as Array<{ source: string }>).map((r) => r.source);
    const remove = this.db.prepare("DELETE FROM sources WHERE source = ?");
    for (const source of all) if (!keep.includes(source)) remove.run(source);
  }

  /**
   * Records a service's latest announcement, timed by the registry's clock (not the sender's). Returns
   * whether its tools changed: a heartbeat with the same manifest only refreshes the time.
   */
  async saveAnnouncement(serviceId: string, manifest: ManifestEntry[]): Promise<boolean> {
    const text = JSON.stringify(manifest);
    const before = this.db.prepare("SELECT manifest FROM announcements WHERE service_id = ?").get(serviceId) as
      { manifest: string } | undefined;
    this.db
      .prepare(
        `INSERT INTO announcements (service_id, manifest, announced_at) VALUES (?, ?, ?)
         ON CONFLICT (service_id) DO UPDATE SET manifest = excluded.manifest, announced_at = excluded.announced_at`,
      )
      .run(serviceId, text, new Date().toISOString());
    return before?.manifest !== text;
  }

  /** Announcements heard since `since` (older ones belong to services that stopped announcing). */
  async announcements(since: Date): Promise<Array<{ service_id: string; manifest: ManifestEntry[] }>> {
    const rows = this.db
      .prepare("SELECT service_id, manifest FROM announcements WHERE announced_at >= ? ORDER BY service_id")
      .all(since.toISOString()) as Array<{ service_id: string; manifest: string }>;
    return rows.map((r) => ({ service_id: r.service_id, manifest: JSON.parse(r.manifest) as ManifestEntry[] }));
  }

  /** One process owns the file: its stores on that file take turns (a queue per file). */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    let queue = turns.get(this.location);
    if (!queue) turns.set(this.location, (queue = new Turns()));
    return queue.run(work);
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
