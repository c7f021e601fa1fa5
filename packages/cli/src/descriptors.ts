import { DescriptorSchemas, McpDescriptor, ToolDescriptor, ToolServiceDescriptor, describeIssues } from "@toolmesh/schema";
import type { z } from "zod";
import { CliError } from "./errors.js";
import { type ConfigParamSpec, parseConfigParam, parseKeyValue, parseToolArgument } from "./options.js";

/** Validates with the schema the services use; the stored form is the one given, not the parsed one. */
export function check(schema: z.ZodType, value: unknown, what: string): void {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new CliError(`invalid ${what}: ${describeIssues(parsed.error)}`);
}

/** A value stored under a type toolmesh knows must pass that type's schema; other types are stored as given. */
export function checkConfigValue(type: string, value: unknown): void {
  const schema = (DescriptorSchemas as Record<string, z.ZodType | undefined>)[type];
  if (schema) check(schema, value, `${type} descriptor`);
}

export interface ToolServiceFlags {
  id: string;
  topic?: string;
  requestQueue?: string;
  responseQueue?: string;
  configParam?: string[];
}

/** The seed form: `{"id", "topic", "config-params": [{"name", "required"}]}` (or the two queues). */
export function buildToolServiceDescriptor(flags: ToolServiceFlags): Record<string, unknown> {
  if (flags.topic && (flags.requestQueue || flags.responseQueue)) {
    throw new CliError("give either --topic or --request-queue/--response-queue, not both");
  }
  if (!flags.topic && !flags.requestQueue) throw new CliError("give --topic or --request-queue and --response-queue");
  const configParams: ConfigParamSpec[] = (flags.configParam ?? []).map(parseConfigParam);
  const descriptor: Record<string, unknown> = flags.topic
    ? { id: flags.id, topic: flags.topic }
    : { id: flags.id, "request-queue": flags.requestQueue, "response-queue": flags.responseQueue };
  descriptor["config-params"] = configParams;
  check(ToolServiceDescriptor, descriptor, "tool-service descriptor");
  return descriptor;
}

export interface ToolFlags {
  name: string;
  type: string;
  description: string;
  service?: string;
  mcpTool?: string;
  argument?: string[];
  config?: string[];
}

// Keys of the descriptor itself; `--config` may not overwrite them.
const TOOL_KEYS = new Set(["type", "name", "description", "service", "mcp-tool", "arguments", "group"]);

/** A tool descriptor; `--config KEY=VALUE` pairs become top-level keys (`"style": "pun"`). */
export function buildToolDescriptor(flags: ToolFlags): Record<string, unknown> {
  if (flags.type === "tool-service" && !flags.service) throw new CliError("a tool-service tool needs --service");
  if (flags.type === "mcp-tool" && !flags.mcpTool) throw new CliError("an mcp-tool tool needs --mcp-tool");
  if (flags.service && flags.type !== "tool-service") throw new CliError("--service applies only to --type tool-service");
  if (flags.mcpTool && flags.type !== "mcp-tool") throw new CliError("--mcp-tool applies only to --type mcp-tool");
  const descriptor: Record<string, unknown> = { type: flags.type, name: flags.name, description: flags.description };
  if (flags.service) descriptor.service = flags.service;
  if (flags.mcpTool) descriptor["mcp-tool"] = flags.mcpTool;
  descriptor.arguments = (flags.argument ?? []).map(parseToolArgument);
  for (const [key, value] of (flags.config ?? []).map((spec) => parseKeyValue("--config", spec))) {
    if (TOOL_KEYS.has(key)) throw new CliError(`--config cannot set '${key}': it is a field of the tool itself`);
    descriptor[key] = value;
  }
  check(ToolDescriptor, descriptor, "tool descriptor");
  return descriptor;
}

export interface McpFlags {
  url: string;
  remoteName?: string;
  authToken?: string;
  header?: string[];
  transport?: string;
  oauth2ClientId?: string;
  oauth2ClientSecret?: string;
  oauth2Scope?: string;
  oauth2Issuer?: string;
}

/** The `oauth2` object from the --oauth2-* flags; undefined when none is given. */
function oauth2Of(flags: McpFlags): Record<string, string> | undefined {
  const fields = {
    "client-id": flags.oauth2ClientId,
    "client-secret": flags.oauth2ClientSecret,
    scope: flags.oauth2Scope,
    issuer: flags.oauth2Issuer,
  };
  const given = Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return given.length > 0 ? Object.fromEntries(given) : undefined;
}

/** `{"url", "remote-name"?, "auth-token"?, "oauth2"?, "headers"?, "transport"?}` (config type `mcp`). */
export function buildMcpDescriptor(flags: McpFlags): Record<string, unknown> {
  const descriptor: Record<string, unknown> = { url: flags.url };
  if (flags.remoteName) descriptor["remote-name"] = flags.remoteName;
  if (flags.authToken) descriptor["auth-token"] = flags.authToken;
  const oauth2 = oauth2Of(flags);
  if (oauth2) descriptor.oauth2 = oauth2;
  if (flags.transport && flags.transport !== "auto") descriptor.transport = flags.transport;
  if (flags.header?.length) {
    descriptor.headers = Object.fromEntries(flags.header.map((spec) => parseKeyValue("--header", spec)));
  }
  check(McpDescriptor, descriptor, "mcp descriptor");
  return descriptor;
}

/** A descriptor read back from config, checked with its schema; `what` names it in the error. */
export function readStored<S extends z.ZodType>(schema: S, text: string, what: string): z.output<S> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CliError(`${what} in config is not valid JSON`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new CliError(`${what} in config is invalid: ${describeIssues(parsed.error)}`);
  return parsed.data;
}
