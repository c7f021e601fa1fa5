import type { WireError } from "@toolmesh/schema";

/**
 * What TrustGraph 2.11's gateway translators make of a service's wire reply (its messaging/translators):
 * fields absent rather than null, JSON strings decoded where TrustGraph decodes them, and never
 * `"error": null` (TrustGraph's client tests `"error" in reply`, so a null error reads as a crash).
 * Where TrustGraph drops a service's error, toolmesh keeps it as `{"error": {type, message}}` (spec §8).
 */
type Reply = Record<string, unknown>;

const errorOf = (reply: Reply): WireError | undefined => {
  const error = reply.error as WireError | null | undefined;
  return error && typeof error === "object" ? error : undefined;
};

/** Config (`ConfigResponseTranslator.encode`): version, values, directory and config always present. */
function presentConfig(reply: Reply): Reply {
  const error = errorOf(reply);
  if (error) return { error };
  const values = (reply.values as Array<Record<string, unknown>> | undefined) ?? [];
  return {
    version: reply.version ?? 0,
    values: values.map(({ type, key, value, workspace }) => ({ type, key, value: value ?? null, ...(workspace ? { workspace } : {}) })),
    directory: reply.directory ?? [],
    config: reply.config ?? {},
  };
}

/** A JSON string decoded; a peer's non-JSON string is passed on as it is rather than lost. */
function decoded(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** mcp-tool (`ToolResponseTranslator.encode`): `text` if non-empty, `object` decoded if non-empty. */
function presentMcpTool(reply: Reply): Reply {
  const error = errorOf(reply);
  if (error) return { error };
  const out: Reply = {};
  if (typeof reply.text === "string" && reply.text !== "") out.text = reply.text;
  if (typeof reply.object === "string" && reply.object !== "") out.object = decoded(reply.object);
  return out;
}

/**
 * Agent (`AgentResponseTranslator.encode`): message_type and content when non-empty, end_of_message and
 * end_of_dialog always, error as {type, message}, in_token, out_token and model when set; toolmesh's run_id
 * and catalog_revision when set.
 */
function presentAgent(reply: Reply): Reply {
  const out: Reply = {};
  if (reply.message_type) out.message_type = reply.message_type;
  if (reply.content) out.content = reply.content;
  out.end_of_message = reply.end_of_message ?? true;
  out.end_of_dialog = reply.end_of_dialog ?? false;
  const error = errorOf(reply);
  if (error) out.error = error;
  if (reply.run_id) out.run_id = reply.run_id;
  if (reply.catalog_revision !== null && reply.catalog_revision !== undefined) out.catalog_revision = reply.catalog_revision;
  for (const field of ["in_token", "out_token", "model"] as const)
    if (reply[field] !== null && reply[field] !== undefined) out[field] = reply[field];
  return out;
}

/**
 * Flow (`FlowResponseTranslator.encode`): each field TrustGraph's flow-svc set, with dashed names. Its error is
 * kept (TrustGraph's translator drops it, so its CLI cannot tell a failed start-flow from one that worked).
 */
function presentFlow(reply: Reply): Reply {
  const error = errorOf(reply);
  if (error) return { error };
  const out: Reply = {};
  for (const [wire, rest] of [
    ["blueprint_names", "blueprint-names"],
    ["flow_ids", "flow-ids"],
    ["blueprint_definition", "blueprint-definition"],
    ["flow", "flow"],
    ["description", "description"],
    ["parameters", "parameters"],
  ] as const) {
    if (reply[wire] !== null && reply[wire] !== undefined) out[rest] = reply[wire];
  }
  return out;
}

/** toolmesh's own services (no TrustGraph translator): the wire reply without its null `error`. */
function withoutNullError(reply: Reply): Reply {
  if (reply.error !== null) return reply;
  const { error: _omitted, ...rest } = reply;
  return rest;
}

const presenters: Record<string, (reply: Reply) => Reply> = {
  config: presentConfig,
  flow: presentFlow,
  "mcp-tool": presentMcpTool,
  agent: presentAgent,
};

/** The kinds TrustGraph's gateway has translators for: their errors are answered in TrustGraph's way. */
export const isTrustGraphKind = (kind: string) => Object.hasOwn(presenters, kind);

/** A service's reply as the gateway's REST and socket answer it. */
export function present(kind: string, reply: unknown): unknown {
  if (!reply || typeof reply !== "object" || Array.isArray(reply)) return reply;
  const presenter = Object.hasOwn(presenters, kind) ? presenters[kind]! : withoutNullError;
  return presenter(reply as Reply);
}
