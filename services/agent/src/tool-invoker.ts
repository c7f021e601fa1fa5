import type { ValidateFunction } from "ajv";
import { toolSchemaValidator } from "@toolmesh/schema/tool-schema-validator";
import type { Logger } from "pino";
import { ClientPool, type TraceContext, ToolServiceClient } from "@toolmesh/base";
import { type PulsarClient, RequestClient } from "@toolmesh/pulsar";
import { type CatalogTool, McpToolResponse, TenantPolicy, type TopicLayout } from "@toolmesh/schema";
import type { ChatModel } from "./llm/chat-model.js";

/** Invocation failures the model should read as an observation, not a crash. */
export class ToolCallProblem extends Error {
  override name = "ToolCallProblem";
}

export interface ToolInvokerOptions {
  pulsar: PulsarClient;
  /** The system's topics: toolmesh's mcp-tool service (MCP_TOOL_TOPIC) for MCP tools naming no queues. */
  topics: TopicLayout;
  timeoutMs: number;
  /** For text-completion tools; absent when no LLM is configured. */
  model?: ChatModel;
  /** Tenants tool-service queues may be in (default: the system's own only). */
  tenants?: TenantPolicy;
  /** Tool-service clients (one producer + one subscription each): released after idling, and bounded. */
  toolClients?: { idleMs: number; maxClients: number };
  logger?: Logger;
}

/**
 * Calls catalog tools by their binding: tool services over Pulsar (ToolServiceClient), MCP tools through
 * the MCP-tool gateway (toolmesh's, or the one the binding names, e.g. TrustGraph's mcp-tool processor),
 * text-completion through the LLM. Arguments are checked against the tool's JSON
 * Schema first; a violation is reported to the model, which can correct itself.
 */
export class ToolInvoker {
  private readonly ajv = toolSchemaValidator({ allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();
  /** Runs may pin older catalog revisions, so clients go by idling and the bound, not by catalog changes. */
  private readonly toolServices: ClientPool<ToolServiceClient>;
  private readonly tenants: TenantPolicy;
  /** MCP-tool gateways by `request response` topics: toolmesh's own, and any a tool names (TrustGraph's). */
  private readonly mcpGateways = new Map<string, Promise<RequestClient<typeof McpToolResponse>>>();

  constructor(private readonly options: ToolInvokerOptions) {
    this.tenants = options.tenants ?? new TenantPolicy(options.topics.tenant);
    this.toolServices = new ClientPool({
      idleMs: options.toolClients?.idleMs ?? 300_000,
      maxClients: options.toolClients?.maxClients ?? 256,
      logger: options.logger ?? options.pulsar.logger,
    });
  }

  /** Parses and validates the model's argument text; throws ToolCallProblem with what is wrong. */
  checkArguments(tool: CatalogTool, text: string): Record<string, unknown> {
    let args: unknown;
    try {
      args = text.trim() === "" ? {} : JSON.parse(text);
    } catch (err) {
      throw new ToolCallProblem(`arguments for ${tool.name} are not valid JSON (${(err as Error).message}); send a JSON object`);
    }
    if (typeof args !== "object" || args === null || Array.isArray(args))
      throw new ToolCallProblem(`arguments for ${tool.name} must be a JSON object`);
    let validate = this.validators.get(tool.content_hash);
    if (!validate) {
      validate = this.ajv.compile(tool.parameters_schema);
      this.validators.set(tool.content_hash, validate);
    }
    if (!validate(args)) {
      const problems = (validate.errors ?? []).map((e) => `${e.instancePath || "(arguments)"} ${e.message ?? "is invalid"}`).join("; ");
      throw new ToolCallProblem(
        `invalid arguments for ${tool.name}: ${problems}. Expected schema: ${JSON.stringify(tool.parameters_schema)}`,
      );
    }
    return args as Record<string, unknown>;
  }

  /**
   * `trace`: the tool call's span, which the tool service (or mcp-tool, or the LLM) continues. `signal`
   * aborts a text-completion's LLM request (a call over Pulsar cannot be withdrawn: its answer is dropped).
   */
  async invoke(
    tool: CatalogTool,
    args: Record<string, unknown>,
    user: string,
    trace?: TraceContext,
    signal?: AbortSignal,
  ): Promise<string> {
    const { binding } = tool;
    switch (binding.kind) {
      case "tool-service": {
        // A catalog binding comes from config or from any manifest: it may not point into another system.
        const outside = this.tenants.firstProblem([binding.request_topic, binding.response_topic]);
        if (outside) throw new ToolCallProblem(`tool ${tool.name} is refused: ${outside}`);
        const lease = this.toolServices.lease(`${binding.request_topic} ${binding.response_topic}`, () =>
          ToolServiceClient.create(this.options.pulsar, {
            requestTopic: binding.request_topic,
            responseTopic: binding.response_topic,
            subscriber: "agent-tool",
            timeoutMs: this.options.timeoutMs,
          }),
        );
        try {
          return await (await lease.client).call(user, binding.config, args, { timeoutMs: this.options.timeoutMs, trace });
        } finally {
          lease.release();
        }
      }
      case "mcp-tool": {
        const own = this.options.topics.mcpTool;
        const gateway = [binding.request_topic ?? own.requestTopic, binding.response_topic ?? own.responseTopic] as const;
        const outside = this.tenants.firstProblem([...gateway]);
        if (outside) throw new ToolCallProblem(`tool ${tool.name} is refused: ${outside}`);
        const client = await this.mcpClient(...gateway);
        const reply = await client.request(
          { name: binding.mcp_tool, parameters: JSON.stringify(args) },
          { timeoutMs: this.options.timeoutMs, trace },
        );
        if (reply.error) throw new ToolCallProblem(`${reply.error.type}: ${reply.error.message}`);
        return reply.text ?? reply.object ?? "";
      }
      case "text-completion": {
        if (!this.options.model) throw new ToolCallProblem("no LLM is configured for text-completion tools");
        const prompt =
          typeof args.question === "string" ? args.question : typeof args.prompt === "string" ? args.prompt : JSON.stringify(args);
        const completion = await this.options.model.complete([{ role: "user", content: prompt }], { trace, signal });
        return completion.content ?? "";
      }
    }
  }

  async close(): Promise<void> {
    const mcp = await Promise.allSettled(this.mcpGateways.values());
    await Promise.all([this.toolServices.close(), ...mcp.map((c) => (c.status === "fulfilled" ? c.value.close() : undefined))]);
  }

  private mcpClient(request: string, response: string): Promise<RequestClient<typeof McpToolResponse>> {
    return cached(this.mcpGateways, `${request} ${response}`, () =>
      RequestClient.create(this.options.pulsar, {
        requestTopic: request,
        responseTopic: response,
        responseSchema: McpToolResponse,
        subscriptionPrefix: "agent-mcp",
        timeoutMs: this.options.timeoutMs,
      }),
    );
  }
}

/** One client per key for the invoker's lifetime; one that failed to start is dropped, so the next call retries. */
function cached<T>(clients: Map<string, Promise<T>>, key: string, create: () => Promise<T>): Promise<T> {
  let client = clients.get(key);
  if (!client) {
    client = create();
    client.catch(() => clients.delete(key));
    clients.set(key, client);
  }
  return client;
}
