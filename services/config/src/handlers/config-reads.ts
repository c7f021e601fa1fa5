import { ReplyError } from "@toolmesh/pulsar";
import { type ConfigRequest, ErrorType } from "@toolmesh/schema";
import type { ConfigStore } from "../store.js";
import type { ConfigOperationHandler } from "./config-request.js";

export const NOT_FOUND = "not-found";

export function requireType(request: ConfigRequest): string {
  if (!request.type) throw new ReplyError(ErrorType.badRequest, `'${request.operation}' needs a 'type'`);
  return request.type;
}

/** The protocol's reads: get (keys), list (a type's keys), getvalues (a type's items), config (a workspace). */
export function readOperations(store: ConfigStore) {
  return {
    get: ({ workspace, keys }) => {
      if (keys.length === 0) throw new ReplyError(ErrorType.badRequest, "'get' needs at least one key");
      const { values, missing } = store.get(workspace, keys);
      if (missing.length > 0) {
        const names = missing.map((k) => `${k.type} '${k.key}'`).join(", ");
        throw new ReplyError(NOT_FOUND, `no ${names} in workspace '${workspace}'`);
      }
      return { version: store.version, values };
    },
    list: (request) => ({ version: store.version, directory: store.keys(request.workspace, requireType(request)) }),
    getvalues: (request) => ({ version: store.version, values: store.values(request.workspace, requireType(request)) }),
    config: ({ workspace }) => ({ version: store.version, config: store.all(workspace) }),
  } satisfies Record<string, ConfigOperationHandler>;
}
