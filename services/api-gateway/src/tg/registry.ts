import { FlowOperation } from "@toolmesh/schema";

/**
 * TrustGraph 2.11's registry of global services (`gateway/registry.py`), for the kinds toolmesh has:
 * `POST /api/v1/{kind}` and socket envelopes without `flow` are looked up as `{kind}:{operation}`.
 */
export const GLOBAL_OPERATIONS: ReadonlySet<string> = new Set([
  ...["get", "list", "getvalues", "getvalues-all-ws", "config", "put", "delete"].map((op) => `config:${op}`),
  // Forwarded to TrustGraph's flow-svc, which keeps its blueprints and flows in toolmesh's config.
  ...FlowOperation.options.map((op) => `flow:${op}`),
]);

/**
 * Operations TrustGraph routes to the workspace's own config queue, which serves only the six
 * single-workspace operations: anything else is answered `bad-operation` there (and never reaches
 * another workspace's items).
 */
export const WORKSPACE_ONLY_REFUSED: ReadonlySet<string> = new Set(["config:getvalues-all-ws"]);

export const BAD_OPERATION = { type: "bad-operation", message: "Bad operation" } as const;

/** Flows toolmesh serves: one, named as TrustGraph names its default flow. */
export const KNOWN_FLOWS: ReadonlySet<string> = new Set(["default"]);

/** The workspace a caller is in when it names none (TrustGraph's no-auth identity's default). */
export const DEFAULT_WORKSPACE = "default";
