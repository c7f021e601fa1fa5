import { ErrorType, ServiceError } from "@toolmesh/schema";
import type { ConfigStore } from "../store.js";
import type { ConfigOperationHandler, IncomingConfigRequest } from "./config-request.js";

export function requireType(request: IncomingConfigRequest): string {
  if (!request.type) throw new ServiceError(ErrorType.badRequest, `'${request.operation}' needs a 'type'`);
  return request.type;
}

/**
 * The protocol's reads of one workspace: get (keys; a missing one has value null, as TrustGraph answers),
 * list (a type's keys), getvalues (a type's items), config (the whole workspace).
 */
export function readOperations(store: ConfigStore) {
  return {
    get: ({ keys }, workspace) => {
      if (keys.length === 0) throw new ServiceError(ErrorType.badRequest, "'get' needs at least one key");
      return { version: store.version, values: store.get(workspace, keys) };
    },
    list: (request, workspace) => ({ version: store.version, directory: store.keys(workspace, requireType(request)) }),
    getvalues: (request, workspace) => ({ version: store.version, values: store.values(workspace, requireType(request)) }),
    config: (_request, workspace) => ({ version: store.version, config: store.all(workspace) }),
  } satisfies Record<string, ConfigOperationHandler>;
}
