import { z } from "zod";
import { AllowedTenants, DEFAULT_TENANT, PersistentQueueId, ServiceName, TenantName } from "@toolmesh/schema";
import { DEFAULT_BROKER_MAX_MESSAGE_SIZE, DEFAULT_SERVICE_CHECK_MS, DEFAULT_MAX_BACKLOG, DEFAULT_MAX_FRAME_SIZE } from "@toolmesh/pulsar";

export { EnvError, parseEnv } from "@toolmesh/schema";

const port = z.coerce.number().int().min(0).max(65_535);
/** OTLP over HTTP only: the gRPC exporter is not shipped. */
const otlpProtocol = z
  .enum(["http/protobuf", "http/json"], { message: "must be http/protobuf or http/json (grpc is not supported)" })
  .optional();

/**
 * The trace-context formats OTEL_PROPAGATORS may name here (OpenTelemetry's names): W3C trace context and
 * baggage (the default pair), Zipkin's B3 as one `b3` header or as `x-b3-*` headers, or `none`.
 */
export const TRACE_PROPAGATORS = ["tracecontext", "baggage", "b3", "b3multi", "none"] as const;
export type TracePropagator = (typeof TRACE_PROPAGATORS)[number];
/** OpenTelemetry's default for OTEL_PROPAGATORS. */
export const DEFAULT_TRACE_PROPAGATORS: TracePropagator[] = ["tracecontext", "baggage"];
const tracePropagators = z
  .string()
  .transform((list) => [...new Set(list.split(",").map((name) => name.trim().toLowerCase()))].filter((name) => name !== ""))
  .superRefine((names, ctx) => {
    const known = TRACE_PROPAGATORS.join(", ");
    const unknown = names.filter((name) => !(TRACE_PROPAGATORS as readonly string[]).includes(name));
    if (names.length === 0) ctx.addIssue({ code: "custom", message: `name at least one of ${known} (comma-separated)` });
    else if (unknown.length > 0)
      ctx.addIssue({ code: "custom", message: `${unknown.join(", ")} ${unknown.length > 1 ? "are" : "is"} not one of ${known}` });
    else if (names.includes("none") && names.length > 1)
      ctx.addIssue({ code: "custom", message: "none sends no trace context: it cannot be combined with others" });
  })
  .transform((names) => names as TracePropagator[])
  .default(DEFAULT_TRACE_PROPAGATORS);

/** The samplers OpenTelemetry's JS SDK builds from OTEL_TRACES_SAMPLER (the ratio ones read OTEL_TRACES_SAMPLER_ARG). */
const TRACES_SAMPLERS = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
] as const;

/** Variables every service reads; a service's own env.ts extends this object. */
export const BaseEnv = z.object({
  /**
   * The broker's binary-protocol address (a broker or a Pulsar proxy). Given, or neither URL given:
   * the binary transport. See pulsarSettings() for the whole rule.
   */
  PULSAR_SERVICE_URL: z
    .string()
    .regex(/^pulsar(\+ssl)?:\/\/[^/\s]+$/, "must be pulsar://host:port or pulsar+ssl://host:port")
    .optional(),
  /** The broker's web service (admin REST; the WebSocket API when that transport is used). */
  PULSAR_WEB_URL: z.url().optional(),
  /** Forces a transport; unset = binary unless only PULSAR_WEB_URL is given. */
  PULSAR_TRANSPORT: z.enum(["binary", "websocket"], { message: "must be binary or websocket" }).optional(),
  /** A token for Pulsar's token authentication, or a file holding one (read at each connect). */
  PULSAR_AUTH_TOKEN: z.string().optional(),
  PULSAR_AUTH_TOKEN_FILE: z.string().optional(),
  /**
   * OAuth2 (client-credentials) authentication to Pulsar, as Apache's clients' `AuthenticationOAuth2`: the
   * issuer URL, the key file with `client_id`/`client_secret` (path, file:// or data: URL), and optionally the
   * audience and scope the token is asked for. Instead of PULSAR_AUTH_TOKEN(_FILE).
   */
  PULSAR_OAUTH2_ISSUER_URL: z.url({ message: "must be the issuer's URL, e.g. https://auth.example.com/" }).optional(),
  PULSAR_OAUTH2_PRIVATE_KEY: z.string().min(1).optional(),
  PULSAR_OAUTH2_AUDIENCE: z.string().min(1).optional(),
  PULSAR_OAUTH2_SCOPE: z.string().min(1).optional(),
  /** PEM files for pulsar+ssl://: the CA that signed the broker's certificate, and a client certificate and key. */
  PULSAR_TLS_CA_FILE: z.string().optional(),
  PULSAR_TLS_CERT_FILE: z.string().optional(),
  PULSAR_TLS_KEY_FILE: z.string().optional(),
  /** `false` accepts any broker certificate (testing only). */
  PULSAR_TLS_VERIFY: z.stringbool({ message: "must be true or false" }).default(true),
  /** Messages a consumer may hold ahead of its handlers (binary transport; the WebSocket API caps it at 1000). */
  PULSAR_RECEIVER_QUEUE_SIZE: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** `json` keeps JSON lines on a terminal too (createLogger reads it); unset: pretty only on a terminal. */
  LOG_FORMAT: z.enum(["json"], { message: "must be json, or unset (JSON lines unless stdout is a terminal)" }).optional(),
  /** Address the service's HTTP server (health, metrics, routes) binds. */
  HTTP_HOST: z.string().default("127.0.0.1"),
  HTTP_PORT: port,
  /** How long shutdown may take to finish in-flight work before the process exits anyway. */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** Services that read config: time for one config request (one type's `getvalues`). */
  CONFIG_REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
  /** Services that read config: consecutive failed reloads after which /readyz answers 503 with the reason. */
  CONFIG_UNREADY_AFTER_FAILURES: z.coerce.number().int().min(1).default(3),
  /** The Pulsar tenant every topic of this system is in (separate systems on one broker use separate tenants). */
  TOOLMESH_TENANT: TenantName.default(DEFAULT_TENANT),
  /** The mcp-tool service's topic name; mcp-tool serves it and the agent, gateway and MCP face call it. */
  MCP_TOOL_TOPIC: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+$/, "a topic name: letters, digits, '_', '.', '-'")
    .default(ServiceName.mcpTool),
  /** Further Pulsar tenants tool queues may name (comma-separated); the system's own is always allowed. */
  TOOLMESH_ALLOWED_TENANTS: AllowedTenants,
  /** The broker's `maxMessageSize`: messages over it (less room for metadata) are refused before sending. */
  PULSAR_MAX_MESSAGE_SIZE: z.coerce.number().int().positive().default(DEFAULT_BROKER_MAX_MESSAGE_SIZE),
  /** The broker's `webSocketMaxTextFrameSize`: a payload travels in it as base64 (4 bytes per 3). */
  PULSAR_WS_MAX_FRAME_SIZE: z.coerce.number().int().positive().default(DEFAULT_MAX_FRAME_SIZE),
  /** Requests a served topic holds at once (handled + waiting); past it new ones are answered `overloaded`. */
  REQUEST_BACKLOG: z.coerce.number().int().positive().default(DEFAULT_MAX_BACKLOG),
  /**
   * How long a request waits for its first reply before the broker's admin API is asked whether its service
   * runs (a consumer on the request topic, or a producer on the response topic); when neither is there the
   * call fails then (NotRunningError) instead of at its timeout. 0 never asks.
   */
  REQUEST_SERVICE_CHECK_MS: z.coerce.number().int().min(0).default(DEFAULT_SERVICE_CHECK_MS),
  /** How often the broker's topic stats are read to count messages it dropped; 0 turns it off. */
  BROKER_DROPS_POLL_MS: z.coerce.number().int().min(0).default(15_000),
  // Tracing (OpenTelemetry's standard variables; see tracingSettings() for what turns it on).
  OTEL_SDK_DISABLED: z.stringbool({ message: "must be true or false" }).default(false),
  OTEL_TRACES_EXPORTER: z.enum(["otlp", "console", "none"], { message: "must be otlp, console or none" }).optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url().optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol,
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol,
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  /** How trace context travels in message properties and HTTP headers (OpenTelemetry's OTEL_PROPAGATORS). */
  OTEL_PROPAGATORS: tracePropagators,
  // The SDK reads these two itself; they are checked here so a typo stops the service instead of being
  // logged and replaced by the default.
  OTEL_TRACES_SAMPLER: z
    .enum(TRACES_SAMPLERS, { message: `must be one of ${TRACES_SAMPLERS.join(", ")}` })
    .default("parentbased_always_on"),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0, "must be between 0 and 1").max(1, "must be between 0 and 1").optional(),
});
export type BaseEnv = z.output<typeof BaseEnv>;

/** BaseEnv for a runtime built inside another process (a test, an embedding): HTTP on a free port unless HTTP_PORT says. */
export const EmbeddedEnv = BaseEnv.extend({ HTTP_PORT: BaseEnv.shape.HTTP_PORT.default(0) });
export type TracesSampler = (typeof TRACES_SAMPLERS)[number];

export const portSchema = port;

/** A bearer token (GATEWAY_TOKEN): long enough not to be guessed, without whitespace (a header could never carry it). */
export const bearerTokenSchema = z
  .string()
  .min(16, "use at least 16 characters (e.g. openssl rand -hex 32)")
  .regex(/^\S+$/, "must not contain whitespace: no Authorization header could carry it");

/** A topic's last part: requests on non-persistent://<tenant>/request/<name>. */
export const topicNameSchema = z.string().regex(/^[A-Za-z0-9_.-]+$/, "a topic name: letters, digits, '_', '.', '-'");

/** What a tool service reads besides BaseEnv: where and how often it announces its manifest. */
export const ToolServiceEnv = BaseEnv.extend({
  /** How often the manifest is announced again (a registry forgets services that stop announcing). */
  TOOL_ANNOUNCE_INTERVAL_MS: z.coerce.number().int().positive().default(60_000),
  /** Persistent topic to announce on (the registry reads the same one); unset: `persistent://<tenant>/flow/tool-announcements`. */
  TOOL_ANNOUNCE_TOPIC: PersistentQueueId.optional(),
});
export type ToolServiceEnv = z.output<typeof ToolServiceEnv>;
