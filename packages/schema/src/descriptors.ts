import { z } from "zod";
import { type TopicLayout, type TopicPair, queueTopic } from "./topics.js";

/** Config types toolmesh understands; the config store validates these and stores others as given. */
export const ConfigType = {
  toolService: "tool-service",
  tool: "tool",
  mcp: "mcp",
  toolSource: "tool-source",
} as const;

/**
 * A queue named in a descriptor, in either of TrustGraph's forms (`request:tg:joke` or
 * `non-persistent://tg/request/joke`); parsed to the full topic name (see queueTopic).
 */
export const QueueId = z
  .string()
  .min(1)
  .transform((queue, ctx) => {
    try {
      return queueTopic(queue);
    } catch (err) {
      ctx.addIssue({ code: "custom", message: (err as Error).message });
      return z.NEVER;
    }
  });

/** A queue that must keep its messages: `flow:<tenant>:<topic>` or `persistent://tenant/namespace/topic`. */
export const PersistentQueueId = QueueId.refine((topic) => topic.startsWith("persistent://"), {
  message: "must be a persistent queue: flow:<tenant>:<topic> or persistent://tenant/namespace/topic",
});

const ConfigParam = z.union([
  z
    .string()
    .min(1)
    .transform((name) => ({ name, required: false })),
  z.object({ name: z.string().min(1), required: z.boolean().default(false) }),
]);

/**
 * A tool service (config type `tool-service`). Two forms are accepted and normalised to topics:
 *   seed:       {"id", "topic": "joke", "config-params": [{"name": "style", "required": false}]}
 *   TrustGraph: {"id", "request-queue": "request:tg:joke", "response-queue": "response:tg:joke", "config-params": ["style"]}
 * The queues may also be full topic names (`non-persistent://tg/request/joke`).
 */
export const ToolServiceDescriptor = z
  .looseObject({
    id: z.string().min(1),
    // One name in this system's request/response namespaces; a '/' would make topics no reader accepts.
    topic: z
      .string()
      .min(1)
      .refine((topic) => !topic.includes("/"), {
        error: (issue) =>
          `'${String(issue.input)}' is not a topic name: a name without '/' (a full topic name goes in request-queue and response-queue)`,
      })
      .optional(),
    "request-queue": QueueId.optional(),
    "response-queue": QueueId.optional(),
    "config-params": z.array(ConfigParam).default([]),
  })
  .superRefine((d, ctx) => {
    if (!d.topic && !d["request-queue"]) {
      ctx.addIssue({ code: "custom", message: "a tool-service needs 'topic' or 'request-queue'" });
    }
    if (d["request-queue"] && !d["response-queue"]) {
      ctx.addIssue({ code: "custom", message: "'request-queue' needs a matching 'response-queue'" });
    }
  })
  .transform((d) => ({
    id: d.id,
    topic: d.topic,
    requestQueue: d["request-queue"],
    responseQueue: d["response-queue"],
    configParams: d["config-params"],
  }));
export type ToolServiceDescriptor = z.output<typeof ToolServiceDescriptor>;

/** A descriptor's topics: its queues as written, or its `topic` name in this system's layout. */
export function toolServiceTopics(descriptor: ToolServiceDescriptor, layout: TopicLayout): TopicPair {
  const own = layout.pair(descriptor.topic ?? descriptor.id);
  return { requestTopic: descriptor.requestQueue ?? own.requestTopic, responseTopic: descriptor.responseQueue ?? own.responseTopic };
}

export const ArgumentType = z.enum(["string", "number", "integer", "boolean", "object", "array"]);

export const ToolArgument = z.object({
  name: z.string().min(1),
  type: ArgumentType.default("string"),
  description: z.string().default(""),
  required: z.boolean().default(true),
});
export type ToolArgument = z.output<typeof ToolArgument>;

/** Names the LLM sees; the registry refuses anything else rather than renaming it. */
export const ToolName = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "tool names are 1-64 characters of A-Z, a-z, 0-9, '_' and '-'");

const toolCommon = {
  name: ToolName,
  description: z.string().default(""),
  arguments: z.array(ToolArgument).default([]),
  group: z.array(z.string()).optional(),
};

/** Tool types toolmesh executes: `tool` descriptors of these types are validated and make catalog tools. */
export const ExecutedToolTypes = ["tool-service", "mcp-tool", "text-completion"] as const;

/**
 * Tool types only TrustGraph's own agents execute (they need TrustGraph's knowledge, prompt and query
 * services). toolmesh stores them as written, as TrustGraph does, and its registry leaves them out of the
 * catalog, saying so.
 */
export const TrustGraphToolTypes = ["knowledge-query", "prompt", "structured-query", "row-embeddings-query"] as const;

/**
 * An mcp-tool tool is served by toolmesh's MCP-tool gateway (topic `mcp-tool`) unless it names the
 * request/response queues of another, e.g. TrustGraph's own mcp-tool processor
 * (`"request-queue": "request:tg:mcp-tool"`); TrustGraph ignores these keys.
 */
const McpToolTool = z
  .looseObject({
    type: z.literal("mcp-tool"),
    "mcp-tool": z.string().min(1),
    "request-queue": QueueId.optional(),
    "response-queue": QueueId.optional(),
    ...toolCommon,
  })
  .refine((t) => (t["request-queue"] === undefined) === (t["response-queue"] === undefined), {
    message: "an mcp-tool tool names both 'request-queue' and 'response-queue', or neither",
  });

/**
 * A tool (config type `tool`) of a type toolmesh executes. Loose objects: a tool-service tool's other keys
 * are its values for the service's config-params (`"style": "pun"`), so they must survive parsing.
 */
export const ToolDescriptor = z.discriminatedUnion(
  "type",
  [
    z.looseObject({ type: z.literal("tool-service"), service: z.string().min(1), ...toolCommon }),
    McpToolTool,
    z.looseObject({ type: z.literal("text-completion"), ...toolCommon }),
  ],
  { error: `'type' must be one of ${[...ExecutedToolTypes, ...TrustGraphToolTypes].join(", ")}` },
);
export type ToolDescriptor = z.output<typeof ToolDescriptor>;

/** A stored `tool` value of a TrustGraph-only type (see TrustGraphToolTypes), or null for any other value. */
export function trustGraphOnlyToolType(value: unknown): string | null {
  const type = typeof value === "object" && value !== null && !Array.isArray(value) ? (value as { type?: unknown }).type : undefined;
  return typeof type === "string" && (TrustGraphToolTypes as readonly string[]).includes(type) ? type : null;
}

/**
 * OAuth 2 client credentials for an MCP server that asks for them (the MCP authorization spec's machine-to-
 * machine flow): on the server's 401 the client finds its authorization server (protected-resource
 * metadata), gets a token with the client_credentials grant and sends it. `client-secret` (and `client-id`)
 * may reference `${env:NAME}`.
 */
export const McpOAuth2 = z.strictObject({
  "client-id": z.string().min(1),
  "client-secret": z.string().min(1),
  /** Space-separated scopes asked for. */
  scope: z.string().min(1).optional(),
  /** The authorization server the credentials belong to: they are never sent to another one the server names. */
  issuer: z.url({ protocol: /^https?$/, error: "oauth2.issuer must be an http(s) URL" }).optional(),
});

/**
 * A remote MCP tool (config type `mcp`, key = tool id). Header values may reference environment variables
 * as `${env:NAME}` so secrets need not sit in plain config.
 */
export const McpDescriptor = z.looseObject({
  url: z.url({ protocol: /^https?$/, error: "url must be an http(s) URL" }),
  "remote-name": z.string().min(1).optional(),
  "auth-token": z.string().min(1).optional(),
  oauth2: McpOAuth2.optional(),
  headers: z.record(z.string(), z.string()).default({}),
  transport: z.enum(["streamable-http", "sse", "auto"]).default("auto"),
});
export type McpDescriptor = z.output<typeof McpDescriptor>;

/** A manifest source (config type `tool-source`). */
export const ToolSourceDescriptor = z.object({
  id: z.string().min(1),
  manifest_url: z.url({ protocol: /^https?$/, error: "manifest_url must be an http(s) URL" }),
  active: z.boolean().default(true),
});
export type ToolSourceDescriptor = z.output<typeof ToolSourceDescriptor>;

export const DescriptorSchemas = {
  [ConfigType.toolService]: ToolServiceDescriptor,
  [ConfigType.tool]: ToolDescriptor,
  [ConfigType.mcp]: McpDescriptor,
  [ConfigType.toolSource]: ToolSourceDescriptor,
} as const;

/**
 * The schema a value stored under `type` must pass, or null when it is stored as given (TrustGraph stores
 * any value): types toolmesh does not use, and `tool` values of TrustGraph-only types. A tool of any other
 * type is refused by ToolDescriptor — it would break TrustGraph's agents too (their reload fails on it).
 * `value` is the parsed JSON.
 */
export function storedDescriptorSchema(type: string, value: unknown): z.ZodType | null {
  if (!Object.hasOwn(DescriptorSchemas, type)) return null;
  if (type === ConfigType.tool && trustGraphOnlyToolType(value) !== null) return null;
  return DescriptorSchemas[type as keyof typeof DescriptorSchemas];
}

/**
 * The values a tool sends its service: the tool's own values for the service's config-params. A missing
 * required one is a descriptor error, reported with both names.
 */
export function toolServiceConfig(
  tool: Record<string, unknown> & { name: string },
  service: ToolServiceDescriptor,
): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const param of service.configParams) {
    if (tool[param.name] !== undefined) config[param.name] = tool[param.name];
    else if (param.required) {
      throw new Error(`tool '${tool.name}' does not set '${param.name}', which service '${service.id}' requires`);
    }
  }
  return config;
}

/** The JSON Schema for a tool's `arguments` list, as offered to an LLM. */
export function argumentsJsonSchema(args: readonly ToolArgument[]): Record<string, unknown> {
  return {
    type: "object",
    properties: Object.fromEntries(args.map((a) => [a.name, { type: a.type, ...(a.description ? { description: a.description } : {}) }])),
    required: args.filter((a) => a.required).map((a) => a.name),
    additionalProperties: false,
  };
}
