import { type CatalogDiff, type CatalogRevision, ErrorType, type RevisionSummary, ServiceError, type SourceStatus } from "@toolmesh/schema";
import { diffRevisions } from "./catalog/diff.js";
import type { RegistryStore } from "./store.js";

/** Read operations shared by the bus handler and the HTTP API. */
export class RegistryQueries {
  constructor(private readonly store: RegistryStore) {}

  current(): CatalogRevision {
    const latest = this.store.latest();
    if (!latest) throw new ServiceError(ErrorType.notFound, "the catalog has no revision yet: refresh it first");
    return latest;
  }

  /** By revision number, or by content hash (64 hex characters). */
  revision(ref: { revision_number?: number | undefined; content_hash?: string | undefined }): CatalogRevision {
    if (ref.revision_number !== undefined) {
      const found = this.store.byNumber(ref.revision_number);
      if (!found) throw new ServiceError(ErrorType.notFound, `no catalog revision ${ref.revision_number}`);
      return found;
    }
    if (ref.content_hash) {
      const found = this.store.byHash(ref.content_hash);
      if (!found) throw new ServiceError(ErrorType.notFound, `no catalog revision with hash ${ref.content_hash}`);
      return found;
    }
    throw new ServiceError(ErrorType.badRequest, "give revision_number or content_hash");
  }

  list(limit: number): RevisionSummary[] {
    return this.store.list(limit);
  }

  /** Defaults: `to` = the current revision, `from` = the one before it. */
  diff(from?: number, to?: number): CatalogDiff {
    const target = to !== undefined ? this.revision({ revision_number: to }) : this.current();
    const fromNumber = from ?? target.revision_number - 1;
    if (fromNumber < 1) throw new ServiceError(ErrorType.badRequest, `revision ${target.revision_number} has no earlier revision to compare with`);
    return diffRevisions(this.revision({ revision_number: fromNumber }), target);
  }

  sources(): SourceStatus[] {
    return this.store.statuses();
  }
}
