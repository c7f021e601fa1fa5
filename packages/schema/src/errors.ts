import { z } from "zod";

/** The one error shape on every reply: `error: {type, message}`, null on success. */
export const WireError = z.object({
  type: z.string(),
  message: z.string(),
});
export type WireError = z.infer<typeof WireError>;

export const NullableWireError = WireError.nullable().default(null);

/**
 * Every error type toolmesh emits, on replies and in HTTP bodies; peers may send others, so the wire type
 * stays a plain string. Each has one HTTP status (errorStatus) for the surfaces that answer over HTTP.
 */
export const ErrorType = {
  badRequest: "bad-request",
  /** An operation the service (or this queue of it) does not have: TrustGraph's config answer. */
  badOperation: "bad-operation",
  /** No or wrong credentials. */
  unauthorized: "unauthorized",
  /** Known caller, refused (another tenant's queue, an origin not allowed). */
  forbidden: "forbidden",
  /** The thing asked for does not exist (a run, a revision, a route). */
  notFound: "not-found",
  /** The gateway has no service by that name. */
  unknownService: "unknown-service",
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
  /** Not ready to serve yet (config not loaded), or shutting down: retry shortly. */
  unavailable: "unavailable",
  /** The broker or a service's reply could not be used. */
  badGateway: "bad-gateway",
  internal: "internal-error",
} as const;
export type ErrorType = (typeof ErrorType)[keyof typeof ErrorType];

const STATUS: Record<ErrorType, number> = {
  "bad-request": 400,
  "bad-operation": 400,
  unauthorized: 401,
  forbidden: 403,
  "not-found": 404,
  "unknown-service": 404,
  "too-large": 413,
  "tool-service-error": 502,
  "mcp-tool-error": 502,
  "config-error": 502,
  "tool-registry-error": 502,
  "agent-error": 502,
  "bad-gateway": 502,
  overloaded: 503,
  unavailable: 503,
  timeout: 504,
  "internal-error": 500,
};

/** The HTTP status an error type answers with (500 for a type toolmesh does not emit). */
export function errorStatus(type: string): number {
  return Object.hasOwn(STATUS, type) ? STATUS[type as ErrorType] : 500;
}

/**
 * The one error class of toolmesh's services: a wire type, a message safe to show the caller, and the HTTP
 * status that type maps to. Thrown from a request handler it becomes the reply's `error: {type, message}`;
 * caught by an HTTP route it becomes the status and `{"error": {type, message}}`.
 */
export class ServiceError extends Error {
  override name = "ServiceError";
  readonly status: number;

  constructor(
    /** One of ErrorType; a tool service may use a type of its own (HTTP status 500). */
    readonly type: ErrorType | (string & {}),
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.status = errorStatus(type);
  }

  get wire(): WireError {
    return { type: this.type, message: this.message };
  }

  /** The HTTP body: `{"error": {type, message}}`. */
  get body(): { error: WireError } {
    return { error: this.wire };
  }
}

/** Formats zod issues as one readable line: `config: not valid JSON ...; arguments: expected record`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => (issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message)).join("; ");
}
