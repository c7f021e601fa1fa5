/**
 * TrustGraph's request translators' inputs that toolmesh's wire schemas would refuse, made wire-shaped:
 * mcp-tool `parameters` comes as a JSON object over REST/WS (seed 003, TrustGraph's ToolRequestTranslator
 * json.dumps it, as it does any other value); a string is taken as already encoded (toolmesh's older form),
 * and null as absent. Flow requests name their fields with dashes (`blueprint-name`, `flow-id`).
 */
export function decodeRequest(kind: string, body: unknown): unknown {
  if (!body || typeof body !== "object" || Array.isArray(body)) return body;
  if (kind === "flow") return flowRequest(body as Record<string, unknown>);
  if (kind !== "mcp-tool") return body;
  const { parameters, ...rest } = body as Record<string, unknown>;
  if (parameters === null || parameters === undefined) return rest;
  // Any other value is encoded too, as TrustGraph's json.dumps does: the wire schema then says it is not an object.
  if (typeof parameters !== "string") return { ...rest, parameters: JSON.stringify(parameters) };
  return body;
}

/** TrustGraph's REST/socket names for FlowRequest's fields (FlowRequestTranslator.decode). */
const FLOW_FIELDS = {
  "blueprint-name": "blueprint_name",
  "blueprint-definition": "blueprint_definition",
  "flow-id": "flow_id",
} as const;

/** A flow request as TrustGraph's gateway sends it on: dashed names made the wire's underscored ones. */
function flowRequest(body: Record<string, unknown>): Record<string, unknown> {
  const wire: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body)) {
    wire[Object.hasOwn(FLOW_FIELDS, name) ? FLOW_FIELDS[name as keyof typeof FLOW_FIELDS] : name] = value;
  }
  return wire;
}
