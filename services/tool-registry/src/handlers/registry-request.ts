import type { ToolRegistryRequest, ToolRegistryResponse } from "@toolmesh/schema";
import type { RegistryQueries } from "../queries.js";
import type { CatalogRefresher } from "../refresh.js";

type Reply = Partial<ToolRegistryResponse>;

/** Answers tool-registry requests on the bus: current, get-revision, list-revisions, diff, refresh, sources. */
export function createRegistryHandler(queries: RegistryQueries, refresher: CatalogRefresher) {
  // Queries throw ServiceError (not-found, bad-request): the request server answers with its type.
  return async (request: ToolRegistryRequest): Promise<Reply> => {
    switch (request.operation) {
      case "current":
        return { revision: await queries.current() };
      case "get-revision":
        return { revision: await queries.revision(request) };
      case "list-revisions":
        return { revisions: await queries.list(request.limit) };
      case "diff":
        return { diff: await queries.diff(request.from_revision, request.to_revision) };
      case "sources":
        return { sources: await queries.sources() };
      case "refresh": {
        const result = await refresher.refresh("bus request");
        return { revision: result.revision, created: result.created, sources: result.sources };
      }
    }
  };
}
