import { z } from "zod";

export { EnvError, parseEnv } from "@toolmesh/schema";

const port = z.coerce.number().int().min(0).max(65_535);

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
  /** A token for Pulsar's token authentication (binary transport), or a file holding one (read at each connect). */
  PULSAR_AUTH_TOKEN: z.string().optional(),
  PULSAR_AUTH_TOKEN_FILE: z.string().optional(),
  /** PEM files for pulsar+ssl://: the CA that signed the broker's certificate, and a client certificate and key. */
  PULSAR_TLS_CA_FILE: z.string().optional(),
  PULSAR_TLS_CERT_FILE: z.string().optional(),
  PULSAR_TLS_KEY_FILE: z.string().optional(),
  /** `false` accepts any broker certificate (testing only). */
  PULSAR_TLS_VERIFY: z.stringbool({ message: "must be true or false" }).default(true),
  /** Messages a consumer may hold ahead of its handlers (binary transport; the WebSocket API caps it at 1000). */
  PULSAR_RECEIVER_QUEUE_SIZE: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** Address the service's HTTP server (health, metrics, routes) binds. */
  HTTP_HOST: z.string().default("127.0.0.1"),
  HTTP_PORT: port,
  /** How long shutdown may take to finish in-flight work before the process exits anyway. */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
});
export type BaseEnv = z.output<typeof BaseEnv>;

export const portSchema = port;
