import { z } from "zod";

/** The one error shape on every reply: `error: {type, message}`, null on success. */
export const WireError = z.object({
  type: z.string(),
  message: z.string(),
});
export type WireError = z.infer<typeof WireError>;

export const NullableWireError = WireError.nullable().default(null);

/** Error types toolmesh itself emits; peers may send others, so the wire type stays a plain string. */
export const ErrorType = {
  badRequest: "bad-request",
  /** An operation the service (or this queue of it) does not have: TrustGraph's config answer. */
  badOperation: "bad-operation",
  toolServiceError: "tool-service-error",
  mcpToolError: "mcp-tool-error",
  configError: "config-error",
  registryError: "tool-registry-error",
  agentError: "agent-error",
  timeout: "timeout",
  /** A value, a write or a reply over a documented size limit; the message names the limit. */
  tooLarge: "too-large",
  /** The server's backlog is full: retry later, or elsewhere. */
  overloaded: "overloaded",
  internal: "internal-error",
} as const;

export function wireError(type: string, message: string): WireError {
  return { type, message };
}

/** Formats zod issues as one readable line: `config: not valid JSON ...; arguments: expected record`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message))
    .join("; ");
}
