/**
 * TrustGraph's request translators' inputs that toolmesh's wire schemas would refuse, made wire-shaped:
 * mcp-tool `parameters` comes as a JSON object over REST/WS (seed 003, TrustGraph's ToolRequestTranslator
 * json.dumps it, as it does any other value); a string is taken as already encoded (toolmesh's older form),
 * and null as absent.
 */
export function decodeRequest(kind: string, body: unknown): unknown {
  if (kind !== "mcp-tool" || !body || typeof body !== "object" || Array.isArray(body)) return body;
  const { parameters, ...rest } = body as Record<string, unknown>;
  if (parameters === null || parameters === undefined) return rest;
  // Any other value is encoded too, as TrustGraph's json.dumps does: the wire schema then says it is not an object.
  if (typeof parameters !== "string") return { ...rest, parameters: JSON.stringify(parameters) };
  return body;
}
