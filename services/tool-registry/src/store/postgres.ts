import { type Migration, type Sql, databaseLocation, openDatabase, type PoolSettings } from "@toolmesh/base";
import type { CatalogRevision, CatalogTool, ManifestEntry, RevisionSummary, SourceStatus } from "@toolmesh/schema";
import { Turns } from "./turns.js";
import { type RegistryStore, type RevisionRow, toRevision } from "./types.js";

const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: "revisions, sources, announcements",
    sql: `
      CREATE TABLE registry_revisions (
        revision_number INTEGER PRIMARY KEY, content_hash TEXT NOT NULL, created_at TEXT NOT NULL,
        tool_count INTEGER NOT NULL, tools TEXT NOT NULL
      );
      CREATE INDEX registry_revisions_by_hash ON registry_revisions (content_hash, revision_number);
      CREATE FUNCTION registry_revisions_immutable() RETURNS trigger LANGUAGE plpgsql AS
        $$ BEGIN RAISE EXCEPTION 'catalog revisions are immutable'; END $$;
      CREATE TRIGGER registry_revisions_no_change BEFORE UPDATE OR DELETE ON registry_revisions
        FOR EACH ROW EXECUTE FUNCTION registry_revisions_immutable();
      CREATE TABLE registry_sources (
        source TEXT PRIMARY KEY, entries TEXT NOT NULL, status TEXT NOT NULL, reason TEXT,
        last_success_at TEXT, left_out TEXT NOT NULL DEFAULT '[]'
      );
      CREATE TABLE registry_announcements (
        service_id TEXT PRIMARY KEY, manifest TEXT NOT NULL, announced_at TEXT NOT NULL
      );`,
  },
];

/**
 * Registry state in PostgreSQL (DATABASE_URL), shared by every registry replica. Refreshes run one at a
 * time across replicas under an advisory lock, and a revision's number is the newest + 1, taken under that
 * lock (the primary key refuses a repeat should anything else try). The current revision is read from the
 * database on every request, so every replica serves the one any replica made last.
 */
export class PostgresRegistryStore implements RegistryStore {
  /** Revisions never change: the newest one read is kept parsed while it stays the newest. */
  private newest: CatalogRevision | null = null;
  private readonly turns = new Turns();

  private constructor(
    private readonly sql: Sql,
    readonly location: string,
  ) {}

  /** Connects and applies the migrations (safe when several replicas start at once). */
  static async open(url: string, pool: PoolSettings = {}): Promise<PostgresRegistryStore> {
    // exclusive() holds one connection while the refresh inside it needs others.
    const sql = await openDatabase(url, "tool-registry", MIGRATIONS, { ...pool, max: Math.max(2, pool.max ?? 10) });
    return new PostgresRegistryStore(sql, databaseLocation(url));
  }

  async latest(): Promise<CatalogRevision | null> {
    const [top] = await this.sql<
      Array<{ revision_number: number }>
    >`SELECT max(revision_number) AS revision_number FROM registry_revisions`;
    const number = top?.revision_number ?? null;
    if (number === null) return null;
    if (this.newest?.revision_number !== number) this.newest = await this.byNumber(number);
    return this.newest;
  }

  async byNumber(revisionNumber: number): Promise<CatalogRevision | null> {
    const [row] = await this.sql<RevisionRow[]>`SELECT * FROM registry_revisions WHERE revision_number = ${revisionNumber}`;
    return row ? toRevision(row) : null;
  }

  async byHash(contentHash: string): Promise<CatalogRevision | null> {
    const [row] = await this.sql<RevisionRow[]>`
      SELECT * FROM registry_revisions WHERE content_hash = ${contentHash} ORDER BY revision_number DESC LIMIT 1`;
    return row ? toRevision(row) : null;
  }

  async list(limit: number): Promise<RevisionSummary[]> {
    return [
      ...(await this.sql<RevisionSummary[]>`
        SELECT revision_number, content_hash, created_at, tool_count FROM registry_revisions ORDER BY revision_number DESC LIMIT ${limit}`),
    ];
  }

  async append(contentHash: string, tools: CatalogTool[]): Promise<CatalogRevision> {
    const createdAt = new Date().toISOString();
    const [row] = await this.sql<Array<{ revision_number: number }>>`
      INSERT INTO registry_revisions (revision_number, content_hash, created_at, tool_count, tools)
      SELECT COALESCE(max(revision_number), 0) + 1, ${contentHash}, ${createdAt}, ${tools.length}, ${JSON.stringify(tools)} FROM registry_revisions
      RETURNING revision_number`;
    this.newest = {
      revision_number: row!.revision_number,
      content_hash: contentHash,
      created_at: createdAt,
      tool_count: tools.length,
      tools,
    };
    return this.newest;
  }

  async lastGoodEntries(source: string): Promise<ManifestEntry[]> {
    const [row] = await this.sql<Array<{ entries: string }>>`SELECT entries FROM registry_sources WHERE source = ${source}`;
    return row ? (JSON.parse(row.entries) as ManifestEntry[]) : [];
  }

  async recordSuccess(source: string, entries: ManifestEntry[], problems: string[], leftOut: string[] = []): Promise<void> {
    await this.sql`
      INSERT INTO registry_sources (source, entries, status, reason, last_success_at, left_out)
      VALUES (${source}, ${JSON.stringify(entries)}, ${problems.length ? "degraded" : "ok"}, ${problems.join("; ") || null}, ${new Date().toISOString()}, ${JSON.stringify(leftOut)})
      ON CONFLICT (source) DO UPDATE SET entries = excluded.entries, status = excluded.status, reason = excluded.reason,
        last_success_at = excluded.last_success_at, left_out = excluded.left_out`;
  }

  async recordFailure(source: string, reason: string): Promise<void> {
    await this.sql`
      INSERT INTO registry_sources (source, entries, status, reason) VALUES (${source}, '[]', 'degraded', ${reason})
      ON CONFLICT (source) DO UPDATE SET status = 'degraded', reason = excluded.reason`;
  }

  async statuses(): Promise<SourceStatus[]> {
    // Counted in place: parsing every source's entries only to count them would cost more than the refresh.
    const rows = await this.sql<Array<Omit<SourceStatus, "left_out"> & { left_out: string }>>`
      SELECT source, status, reason, json_array_length(entries::json) AS tool_count, last_success_at, left_out
      FROM registry_sources ORDER BY source COLLATE "C"`;
    return rows.map((row) => ({ ...row, left_out: JSON.parse(row.left_out) as string[] }));
  }

  async forgetSourcesExcept(keep: readonly string[]): Promise<void> {
    await this.sql`DELETE FROM registry_sources WHERE NOT (source = ANY(${[...keep]}::text[]))`;
  }

  async saveAnnouncement(serviceId: string, manifest: ManifestEntry[]): Promise<boolean> {
    const text = JSON.stringify(manifest);
    // The CTE reads the row as it was before this statement's upsert.
    const [row] = await this.sql<Array<{ before: string | null }>>`
      WITH previous AS (SELECT manifest FROM registry_announcements WHERE service_id = ${serviceId})
      INSERT INTO registry_announcements (service_id, manifest, announced_at) VALUES (${serviceId}, ${text}, ${new Date().toISOString()})
      ON CONFLICT (service_id) DO UPDATE SET manifest = excluded.manifest, announced_at = excluded.announced_at
      RETURNING (SELECT manifest FROM previous) AS before`;
    return row?.before !== text;
  }

  async announcements(since: Date): Promise<Array<{ service_id: string; manifest: ManifestEntry[] }>> {
    const rows = await this.sql<Array<{ service_id: string; manifest: string }>>`
      SELECT service_id, manifest FROM registry_announcements WHERE announced_at >= ${since.toISOString()} ORDER BY service_id COLLATE "C"`;
    return rows.map((r) => ({ service_id: r.service_id, manifest: JSON.parse(r.manifest) as ManifestEntry[] }));
  }

  /**
   * Turns in this process first (so waiting refreshes never hold every pooled connection), then a
   * transaction-scoped advisory lock across replicas: released at commit, or by the server when the holder's
   * connection dies (a replica killed mid-refresh never blocks the others).
   */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.turns.run(async () => {
      let result: T | undefined;
      await this.sql.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(hashtext('toolmesh:registry-refresh'))`;
        result = await work();
      });
      return result as T;
    });
  }

  async close(): Promise<void> {
    await this.sql.end({ timeout: 5 });
  }
}
