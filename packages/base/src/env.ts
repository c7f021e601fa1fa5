import { z } from "zod";

/** Raised at start-up for a bad environment; the message names every offending variable. */
export class EnvError extends Error {
  override name = "EnvError";
}

/**
 * Parses `source` (process.env by default) with a zod object whose keys are variable names. Empty strings
 * count as unset, so `PORT=` falls back to the default instead of failing as "not a number".
 */
export function parseEnv<S extends z.ZodObject>(schema: S, source: NodeJS.ProcessEnv = process.env): z.output<S> {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== ""));
  const parsed = schema.safeParse(cleaned);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const name = issue.path.join(".") || "(environment)";
    const value = typeof issue.path[0] === "string" ? cleaned[issue.path[0]] : undefined;
    return `  ${name}${value !== undefined ? `=${JSON.stringify(value)}` : ""}: ${issue.message}`;
  });
  throw new EnvError(`invalid environment:\n${problems.join("\n")}`);
}

const port = z.coerce.number().int().min(0).max(65_535);

/** Variables every service reads; a service's own env.ts extends this object. */
export const BaseEnv = z.object({
  /** The broker's web service (admin REST + WebSocket API). */
  PULSAR_WEB_URL: z.url().default("http://127.0.0.1:8080"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** Address the service's HTTP server (health, metrics, routes) binds. */
  HTTP_HOST: z.string().default("127.0.0.1"),
  HTTP_PORT: port,
  /** How long shutdown may take to finish in-flight work before the process exits anyway. */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
});
export type BaseEnv = z.output<typeof BaseEnv>;

export const portSchema = port;
