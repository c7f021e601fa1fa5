import { ErrorType, ServiceError } from "@toolmesh/schema";
import type { ConfigStore } from "../store/index.js";
import type { ConfigOperationHandler, IncomingConfigRequest } from "./config-request.js";

export function requireType(request: IncomingConfigRequest): string {
  if (!request.type) throw new ServiceError(ErrorType.badRequest, `'${request.operation}' needs a 'type'`);
  return request.type;
}

/**
 * The protocol's reads of one workspace: get (keys; a missing one has value null, as TrustGraph answers),
 * list (a type's keys), getvalues (a type's items), config (the whole workspace). The version is read
 * before the items, so the items are at least as new as the version a reply names: a caller that then hears
 * of a newer version reads again, never keeps items older than it believes.
 */
export function readOperations(store: ConfigStore) {
  return {
    // No keys, no values (as TrustGraph answers).
    get: async ({ keys }, workspace) => {
      const version = await store.version();
      return { version, values: keys.length === 0 ? [] : await store.get(workspace, keys) };
    },
    list: async (request, workspace) => {
      const type = requireType(request);
      const version = await store.version();
      return { version, directory: await store.keys(workspace, type) };
    },
    getvalues: async (request, workspace) => {
      const type = requireType(request);
      const version = await store.version();
      return { version, values: await store.values(workspace, type) };
    },
    config: async (_request, workspace) => {
      const version = await store.version();
      return { version, config: await store.all(workspace) };
    },
  } satisfies Record<string, ConfigOperationHandler>;
}
