import { type CatalogDiff, type CatalogRevision, type RevisionSummary, type SourceStatus, ErrorType, ServiceError } from "@toolmesh/schema";
import { diffRevisions } from "./catalog/diff.js";
import type { RegistryStore } from "./store/index.js";

/** Read operations shared by the bus handler and the HTTP API. */
export class RegistryQueries {
  constructor(private readonly store: RegistryStore) {}

  async current(): Promise<CatalogRevision> {
    const latest = await this.store.latest();
    if (!latest) throw new ServiceError(ErrorType.notFound, "the catalog has no revision yet: refresh it first");
    return latest;
  }

  /** By revision number, or by content hash (64 hex characters). */
  async revision(ref: { revision_number?: number | undefined; content_hash?: string | undefined }): Promise<CatalogRevision> {
    if (ref.revision_number !== undefined) {
      const found = await this.store.byNumber(ref.revision_number);
      if (!found) throw new ServiceError(ErrorType.notFound, `no catalog revision ${ref.revision_number}`);
      return found;
    }
    if (ref.content_hash) {
      const found = await this.store.byHash(ref.content_hash);
      if (!found) throw new ServiceError(ErrorType.notFound, `no catalog revision with hash ${ref.content_hash}`);
      return found;
    }
    throw new ServiceError(ErrorType.badRequest, "give revision_number or content_hash");
  }

  list(limit: number): Promise<RevisionSummary[]> {
    return this.store.list(limit);
  }

  /** Defaults: `to` = the current revision, `from` = the one before it. */
  async diff(from?: number, to?: number): Promise<CatalogDiff> {
    const target = to !== undefined ? await this.revision({ revision_number: to }) : await this.current();
    const fromNumber = from ?? target.revision_number - 1;
    if (fromNumber < 1)
      throw new ServiceError(ErrorType.badRequest, `revision ${target.revision_number} has no earlier revision to compare with`);
    return diffRevisions(await this.revision({ revision_number: fromNumber }), target);
  }

  sources(): Promise<SourceStatus[]> {
    return this.store.statuses();
  }
}
