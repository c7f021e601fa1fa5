import { z } from "zod";
import { BaseEnv, bearerTokenSchema, parseEnv } from "@toolmesh/base";
import { ServicePorts } from "@toolmesh/schema";

const milliseconds = z.coerce.number().int().positive();
const urlList = z
  .string()
  .transform((text) =>
    text
      .split(",")
      .map((u) => u.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.url({ protocol: /^https?$/, error: "each entry must be an http(s) URL" })));

/** An origin as browsers send it: scheme://host[:port], no path (`https://app.example.com`). */
const origin = z.string().refine((text) => URL.canParse(text) && new URL(text).origin === text, {
  error: (issue) => `'${String(issue.input)}' is not an origin: scheme://host[:port], e.g. https://app.example.com`,
});

export const McpServerEnv = BaseEnv.extend({
  HTTP_PORT: BaseEnv.shape.HTTP_PORT.default(ServicePorts["mcp-server"]),
  /** The api-gateway's bearer token, with the same meaning here: every /mcp request needs it; unset = open. */
  GATEWAY_TOKEN: bearerTokenSchema.optional(),
  /** OAuth authorization servers (comma-separated issuer URLs) named in the protected-resource metadata. */
  MCP_AUTHORIZATION_SERVERS: urlList.default([]),
  /** This server's public URL (e.g. https://tools.example.com/mcp): the `resource` of that metadata. */
  MCP_RESOURCE_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Scopes (comma- or space-separated) every OAuth access token must carry; none by default. */
  MCP_REQUIRED_SCOPES: z
    .string()
    .transform((text) => text.split(/[\s,]+/).filter(Boolean))
    .default([]),
  /**
   * Origins (scheme://host:port) whose browser pages may call /mcp. A request with any other `Origin` header
   * is refused (403): the spec's guard against DNS rebinding. Non-browser clients send no Origin.
   */
  MCP_ALLOWED_ORIGINS: z
    .string()
    .transform((text) =>
      text
        .split(",")
        .map((o) => o.trim().replace(/\/$/, ""))
        .filter(Boolean),
    )
    .pipe(z.array(origin))
    .default([]),
  /** Time one tools/call may take, from the request to the tool's last reply. */
  MCP_CALL_TIMEOUT_MS: milliseconds.default(30_000),
  /** Time for the tool registry to answer (current revision, a revision's tools). */
  MCP_REGISTRY_TIMEOUT_MS: milliseconds.default(10_000),
  /** Tools per tools/list page. */
  MCP_PAGE_SIZE: z.coerce.number().int().min(1).max(10_000).default(500),
  /** A session unused for this long is closed (its client must initialize again). */
  MCP_SESSION_IDLE_MS: milliseconds.default(30 * 60_000),
  /** Sessions one instance keeps open; an initialize beyond it is refused with 503. */
  MCP_MAX_SESSIONS: z.coerce.number().int().positive().default(10_000),
  /** Safety net for registry pushes missed while disconnected: the current revision is re-read this often. */
  MCP_REGISTRY_POLL_MS: milliseconds.default(30_000),
}).superRefine((env, ctx) => {
  if (env.MCP_AUTHORIZATION_SERVERS.length > 0 && !env.MCP_RESOURCE_URL) {
    ctx.addIssue({
      code: "custom",
      path: ["MCP_RESOURCE_URL"],
      message: "is required when MCP_AUTHORIZATION_SERVERS is set (it is the metadata's `resource`)",
    });
  }
});
export type McpServerEnv = z.output<typeof McpServerEnv>;

export const loadEnv = (source: NodeJS.ProcessEnv = process.env): McpServerEnv => parseEnv(McpServerEnv, source);
