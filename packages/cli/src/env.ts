import { z } from "zod";
import { CliError } from "./errors.js";

/** The environment `tg` reads. */
export const CliEnv = z.object({
  /** The api-gateway's base URL. */
  TG_URL: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).default("http://127.0.0.1:8088"),
  /** Sent as `Authorization: Bearer ...` when set. */
  TG_TOKEN: z.string().optional(),
  /** How long one gateway call may take; the gateway's own timeout (504) normally comes first. */
  TG_TIMEOUT_MS: z.coerce.number().int().positive().default(120_000),
});
export type CliEnv = z.output<typeof CliEnv>;

/**
 * Parses the environment; empty values count as unset. A bad value is a one-line error naming the
 * variable (the services use `parseEnv` from @toolmesh/base, which a CLI should not pull in with its
 * server dependencies).
 */
export function parseCliEnv(source: Record<string, string | undefined>): CliEnv {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined && value !== ""));
  const parsed = CliEnv.safeParse(cleaned);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const name = String(issue.path[0] ?? "environment");
    return `${name}=${JSON.stringify(cleaned[name] ?? "")}: ${issue.message}`;
  });
  throw new CliError(`invalid environment: ${problems.join("; ")}`);
}
