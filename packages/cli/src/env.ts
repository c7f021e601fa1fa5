import { z } from "zod";
import { EnvError, parseEnv } from "@toolmesh/schema";
import { CliError } from "./errors.js";

/** The environment `tg` reads. */
export const CliEnv = z.object({
  /** The api-gateway's base URL. */
  TG_URL: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).default("http://127.0.0.1:8088"),
  /** Sent as `Authorization: Bearer ...` when set. */
  TG_TOKEN: z.string().optional(),
  /** How long one gateway call may take; the gateway's own timeout (504) normally comes first. */
  TG_TIMEOUT_MS: z.coerce.number().int().positive().default(120_000),
  /** toolmesh's MCP endpoint (services/mcp-server), which `tg mcp` forwards to; TG_TOKEN is its token too. */
  TG_MCP_URL: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).default("http://127.0.0.1:8706/mcp"),
});
export type CliEnv = z.output<typeof CliEnv>;

/** Parses the environment with the repo's one env parser; a bad value becomes a one-line CLI error. */
export function parseCliEnv(source: Record<string, string | undefined>): CliEnv {
  try {
    return parseEnv(CliEnv, source);
  } catch (err) {
    if (err instanceof EnvError) throw new CliError(`invalid environment: ${err.problems.join("; ")}`);
    throw err;
  }
}
