import type { ConfigStore } from "../store/index.js";
import { requireType } from "./config-reads.js";
import type { ConfigOperationHandler } from "./config-request.js";

/**
 * The system queue's reads across every workspace (reserved ones included), each item naming its
 * workspace. TrustGraph's processors load with `getkeys-all-ws` (values left empty, so the reply stays
 * small) and then `getvalues` per workspace.
 */
export function allWorkspaceOperations(store: ConfigStore) {
  return {
    "getkeys-all-ws": async (request) => {
      const version = await store.version();
      return { version, values: (await store.keysAllWorkspaces(requireType(request))).map((item) => ({ ...item, value: "" })) };
    },
    "getvalues-all-ws": async (request) => {
      const version = await store.version();
      return { version, values: await store.valuesAllWorkspaces(requireType(request)) };
    },
  } satisfies Record<string, ConfigOperationHandler>;
}
