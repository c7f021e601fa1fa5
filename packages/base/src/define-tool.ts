import { z } from "zod";
import { ErrorType, type ManifestEntry, ServiceError, type TopicLayout } from "@toolmesh/schema";
import { DynamicToolService, type InvocationContext, type ToolResult } from "./dynamic-tool-service.js";

/** What `run` gets besides its arguments: the caller, the validated config values, the request's id and logger. */
export interface ToolRunContext<C> extends InvocationContext {
  user: string;
  config: C;
}

type AnyObject = z.ZodObject;
type Output<S extends AnyObject | undefined> = S extends AnyObject ? z.output<S> : Record<string, unknown>;
type Input<S extends AnyObject | undefined> = S extends AnyObject ? z.input<S> : Record<string, unknown>;
type RunResult = ToolResult | Promise<ToolResult> | AsyncIterable<ToolResult>;

/** One catalog entry of a tool: its own name and description, and the config values its binding sends. */
export interface ToolVariant<C extends AnyObject | undefined> {
  name: string;
  description: string;
  config: Input<C>;
}

export interface ToolSpec<I extends AnyObject, C extends AnyObject | undefined = undefined> {
  /** The tool's name in the catalog (and its tool_id under the service's id). */
  name: string;
  description: string;
  /** The arguments: a zod object; the manifest's parameters_schema is generated from it. */
  input: I;
  /**
   * Values sent with every call by the tool's binding (a manifest entry's `config`, or a TrustGraph tool's
   * config-params), validated like the arguments. Omitted: the config is passed through as it comes.
   */
  config?: C;
  /** Several catalog entries on the one handler, each with its own config; default: one entry, empty config. */
  variants?: ToolVariant<C>[];
  /** Gets validated, typed arguments; returns a result, or yields chunks for a stream. Throwing is an error reply. */
  run(args: z.output<I>, context: ToolRunContext<Output<C>>): RunResult;
}

/** A tool defined with zod: the spec plus its generated JSON Schema. */
export interface DefinedTool<I extends AnyObject = AnyObject, C extends AnyObject | undefined = AnyObject | undefined> extends ToolSpec<
  I,
  C
> {
  /** JSON Schema (draft-07) of the arguments, as callers send them: fields with defaults are optional. */
  readonly parametersSchema: Record<string, unknown>;
}

/**
 * Defines a tool from a zod schema of its arguments. The JSON Schema that the manifest and announcements
 * carry comes from the same schema (zod's own `z.toJSONSchema`), so the two cannot drift apart.
 */
export function defineTool<I extends AnyObject, C extends AnyObject | undefined = undefined>(spec: ToolSpec<I, C>): DefinedTool<I, C> {
  // `$schema` is left out: the schema is a fragment of a manifest entry, not a document of its own.
  const { $schema: _, ...parametersSchema } = z.toJSONSchema(spec.input, { target: "draft-7", io: "input" });
  return { ...spec, parametersSchema };
}

/** `argument 'days': Too big: expected number to be <=7`; a missing one reads `argument 'topic' is required`. */
function describeInvalid(what: "argument" | "config", error: z.ZodError, value: Record<string, unknown>): string {
  return error.issues
    .flatMap((issue) => {
      if (issue.code === "unrecognized_keys") return issue.keys.map((key) => `unknown ${what} '${key}'`);
      const field = issue.path.join(".");
      if (field === "") return [`${what}s: ${issue.message}`];
      const missing = issue.code === "invalid_type" && issue.path.length === 1 && value[String(issue.path[0])] === undefined;
      return [missing ? `${what} '${field}' is required` : `${what} '${field}': ${issue.message}`];
    })
    .join("; ");
}

function isAsyncIterable(value: unknown): value is AsyncIterable<ToolResult> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}

export interface DefinedToolServiceOptions {
  /** Service id: its Shared subscription is `{id}-request`, and its tools' ids start with it. */
  id: string;
  /** Topic name: requests on non-persistent://{tenant}/request/{topic}. */
  topic: string;
  tool: DefinedTool;
}

/**
 * Serves one defined tool on its topic. Arguments that do not fit the tool's schema get a `bad-request`
 * reply naming the field (the caller sent them); config that does not fit gets `tool-service-error`
 * (the tool's definition is wrong, not the call). Either way the service keeps serving.
 */
export class DefinedToolService extends DynamicToolService {
  readonly id: string;
  readonly topic: string;
  private readonly tool: DefinedTool;

  constructor(options: DefinedToolServiceOptions) {
    super();
    this.id = options.id;
    this.topic = options.topic;
    this.tool = options.tool;
  }

  // Not async: a streaming tool's iterable is returned as it is. Bad input is a rejection before `run` starts.
  invoke(
    user: string,
    config: Record<string, unknown>,
    args: Record<string, unknown>,
    context: InvocationContext,
  ): Promise<ToolResult> | AsyncIterable<ToolResult> {
    const parsedArgs = this.tool.input.safeParse(args);
    if (!parsedArgs.success)
      return Promise.reject(new ServiceError(ErrorType.badRequest, describeInvalid("argument", parsedArgs.error, args)));
    const parsedConfig = this.tool.config ? this.tool.config.safeParse(config) : { success: true as const, data: config };
    if (!parsedConfig.success)
      return Promise.reject(new ServiceError(ErrorType.toolServiceError, describeInvalid("config", parsedConfig.error, config)));
    try {
      const result = this.tool.run(parsedArgs.data, { ...context, user, config: parsedConfig.data });
      return isAsyncIterable(result) ? result : Promise.resolve(result);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  override manifest(topics: TopicLayout): ManifestEntry[] {
    const { requestTopic, responseTopic } = topics.pair(this.topic);
    const variants = this.tool.variants ?? [{ name: this.tool.name, description: this.tool.description, config: {} }];
    return variants.map((variant) => ({
      tool_id: `${this.id}.${variant.name}`,
      name: variant.name,
      description: variant.description,
      parameters_schema: this.tool.parametersSchema,
      binding: {
        kind: "tool-service",
        request_topic: requestTopic,
        response_topic: responseTopic,
        config: variant.config as Record<string, unknown>,
      },
    }));
  }
}
