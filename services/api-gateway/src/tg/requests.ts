/**
 * TrustGraph's request translators' inputs that toolmesh's wire schemas would refuse, made wire-shaped:
 * mcp-tool `parameters` comes as a JSON object over REST/WS (seed 003, TrustGraph's ToolRequestTranslator
 * json.dumps it); a string is taken as already encoded (toolmesh's older form), and null as absent.
 */
export function decodeRequest(kind: string, body: unknown): unknown {
  if (kind !== "mcp-tool" || !body || typeof body !== "object" || Array.isArray(body)) return body;
  const { parameters, ...rest } = body as Record<string, unknown>;
  if (parameters === null || parameters === undefined) return rest;
  if (typeof parameters === "object" && !Array.isArray(parameters)) return { ...rest, parameters: JSON.stringify(parameters) };
  return body;
}
