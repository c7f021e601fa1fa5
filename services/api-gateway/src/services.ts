import type { z } from "zod";
import type { ConfigView } from "@toolmesh/base";
import {
  AgentRequest,
  AgentResponse,
  AgentRunsRequest,
  AgentRunsResponse,
  ConfigRequest,
  ConfigResponse,
  ConfigType,
  ErrorType,
  FlowRequest,
  FlowResponse,
  McpToolRequest,
  McpToolResponse,
  ServiceError,
  ServiceName,
  type TenantPolicy,
  ToolRegistryRequest,
  ToolRegistryResponse,
  ToolServiceDescriptor,
  ToolServiceRequest,
  ToolServiceResponse,
  type TopicLayout,
  type TopicPair,
  parseTopic,
  toolServiceTopics,
} from "@toolmesh/schema";

/** Everything the dispatcher needs to forward one request and know when its replies end. */
export interface ServiceRoute {
  /** `config`, `agent`, ... or `tool-service` for any tool service: the kind decides the schemas. */
  kind: string;
  /** The service as callers name it: a fixed service's name, or a tool service's descriptor id. */
  name: string;
  /** Tool services come and go with config: their clients are pooled (released when idle or gone). */
  pooled: boolean;
  requestTopic: string;
  responseTopic: string;
  requestSchema: z.ZodType;
  responseSchema: z.ZodType;
  /** Streamed services answer with several replies; single-reply services with exactly one. */
  streamed: boolean;
  isLast: (reply: never) => boolean;
  timeoutMs: number;
  /** The setting that gives timeoutMs, named in timeout errors. */
  timeoutSetting: string;
}

export interface ServiceTimeouts {
  requestMs: number;
  /** Idle time allowed between agent messages. */
  agentMs: number;
  /** Time for an mcp-tool reply: longer than mcp-tool's own connect + call timeouts, so its error comes first. */
  mcpToolMs: number;
}

/** The longest any route waits for a reply (the HTTP server's idle timeout is derived from it). */
export const longestWaitMs = (timeouts: ServiceTimeouts) => Math.max(timeouts.requestMs, timeouts.agentMs, timeouts.mcpToolMs);

/** Wire schemas by service kind; `tool-service` covers every tool service. Also feeds the OpenAPI document. */
export const ServiceSchemas = {
  [ServiceName.config]: { request: ConfigRequest, response: ConfigResponse, streamed: false },
  [ServiceName.mcpTool]: { request: McpToolRequest, response: McpToolResponse, streamed: false },
  [ServiceName.agent]: { request: AgentRequest, response: AgentResponse, streamed: true },
  [ServiceName.agentRuns]: { request: AgentRunsRequest, response: AgentRunsResponse, streamed: false },
  [ServiceName.toolRegistry]: { request: ToolRegistryRequest, response: ToolRegistryResponse, streamed: false },
  [ConfigType.toolService]: { request: ToolServiceRequest, response: ToolServiceResponse, streamed: true },
} as const;

const single = () => true;
// An agent run ends with its final answer, or with an error message.
const agentDone = (reply: AgentResponse) => reply.end_of_dialog || reply.message_type === "error";
const toolServiceDone = (reply: ToolServiceResponse) => reply.end_of_stream || reply.error !== null;

function fixedRoute(
  name: keyof typeof ServiceSchemas,
  topics: TopicPair,
  isLast: ServiceRoute["isLast"],
  timeoutMs: number,
  timeoutSetting: string,
): ServiceRoute {
  const { request, response, streamed } = ServiceSchemas[name];
  return {
    kind: name,
    name,
    pooled: false,
    ...topics,
    requestSchema: request,
    responseSchema: response,
    streamed,
    isLast,
    timeoutMs,
    timeoutSetting,
  };
}

const REQUEST_SETTING = "GATEWAY_REQUEST_TIMEOUT_MS";

function fixedRoutes(layout: TopicLayout, timeouts: ServiceTimeouts): Record<string, ServiceRoute> {
  return {
    [ServiceName.config]: fixedRoute(ServiceName.config, layout.pair(ServiceName.config), single, timeouts.requestMs, REQUEST_SETTING),
    [ServiceName.mcpTool]: fixedRoute(ServiceName.mcpTool, layout.mcpTool, single, timeouts.mcpToolMs, "GATEWAY_MCP_TOOL_TIMEOUT_MS"),
    [ServiceName.agent]: fixedRoute(
      ServiceName.agent,
      layout.pair(ServiceName.agent),
      agentDone,
      timeouts.agentMs,
      "GATEWAY_AGENT_TIMEOUT_MS",
    ),
    [ServiceName.agentRuns]: fixedRoute(
      ServiceName.agentRuns,
      layout.pair(ServiceName.agentRuns),
      single,
      timeouts.requestMs,
      REQUEST_SETTING,
    ),
    [ServiceName.toolRegistry]: fixedRoute(
      ServiceName.toolRegistry,
      layout.pair(ServiceName.toolRegistry),
      single,
      timeouts.requestMs,
      REQUEST_SETTING,
    ),
  };
}

/**
 * The service table: five fixed services, and every tool service found by its id among the `tool-service`
 * config items. Descriptors are read per request, so a new tool service is reachable as soon as config
 * has it; one whose queues lie outside the tenants the policy allows is refused (403).
 */
export class ServiceTable {
  private readonly fixed: Record<string, ServiceRoute>;

  constructor(
    private readonly config: ConfigView,
    private readonly topics: TopicLayout,
    private readonly timeouts: ServiceTimeouts,
    private readonly tenants: TenantPolicy,
  ) {
    this.fixed = fixedRoutes(topics, timeouts);
  }

  get fixedNames(): string[] {
    return Object.keys(this.fixed);
  }

  /** The topic pairs of every usable tool-service descriptor now in config. */
  toolServiceTopics(): Array<Pick<ServiceRoute, "requestTopic" | "responseTopic">> {
    if (!this.config.ready) return [];
    return [...this.config.parsed(ConfigType.toolService, ToolServiceDescriptor).items.values()].map((d) =>
      toolServiceTopics(d, this.topics),
    );
  }

  /**
   * Config on one workspace's own queue (`request:tg:config:<ws>`), where TrustGraph's gateway sends the
   * global config operations: the config service takes the workspace from the queue, not the body.
   */
  workspaceConfig(workspace: string): ServiceRoute {
    return { ...this.fixed[ServiceName.config]!, ...this.topics.workspaceConfig(workspace) };
  }

  /**
   * TrustGraph's flow service (flow-svc) for one workspace, on its queue `request:tg:flow:<ws>`: toolmesh runs
   * none, so these reach TrustGraph's when one runs (and are answered "not running" when none does).
   */
  workspaceFlow(workspace: string): ServiceRoute {
    return {
      kind: "flow",
      name: "flow",
      pooled: false,
      ...this.topics.workspaceFlow(workspace),
      requestSchema: FlowRequest,
      responseSchema: FlowResponse,
      streamed: false,
      isLast: single,
      timeoutMs: this.timeouts.requestMs,
      timeoutSetting: REQUEST_SETTING,
    };
  }

  /** The global service `kind` (config or flow) for one workspace. */
  workspaceService(kind: string, workspace: string): ServiceRoute {
    return kind === "flow" ? this.workspaceFlow(workspace) : this.workspaceConfig(workspace);
  }

  /** The route for `name`; throws a ServiceError (403, 404, 502 or 503) when there is none to use. */
  resolve(name: string): ServiceRoute {
    const fixed = Object.hasOwn(this.fixed, name) ? this.fixed[name] : undefined;
    if (fixed) return fixed;
    if (!this.config.ready) {
      throw new ServiceError(ErrorType.unavailable, "configuration is not loaded yet; retry shortly");
    }
    // Parsed once per config version by the view; a Map lookup, so `__proto__` and friends find nothing.
    const { items, invalid } = this.config.parsed(ConfigType.toolService, ToolServiceDescriptor);
    const unusable = (reason: string) =>
      new ServiceError(ErrorType.configError, `tool-service descriptor '${name}' is unusable: ${reason}`);
    const descriptor = items.get(name);
    if (!descriptor) {
      const refused = invalid.find((i) => i.key === name);
      if (refused) throw unusable(refused.reason);
      throw new ServiceError(
        ErrorType.unknownService,
        `unknown service '${name}': not one of ${this.fixedNames.join(", ")}, and no tool-service descriptor has id '${name}'`,
      );
    }
    const { requestTopic, responseTopic } = toolServiceTopics(descriptor, this.topics);
    try {
      parseTopic(requestTopic);
      parseTopic(responseTopic);
    } catch (err) {
      throw unusable((err as Error).message);
    }
    const outside = this.tenants.firstProblem([requestTopic, responseTopic]);
    if (outside) throw new ServiceError(ErrorType.forbidden, `tool-service descriptor '${name}' is refused: ${outside}`);
    return {
      kind: ConfigType.toolService,
      name,
      pooled: true,
      requestTopic,
      responseTopic,
      requestSchema: ToolServiceRequest,
      responseSchema: ToolServiceResponse,
      streamed: true,
      isLast: toolServiceDone,
      timeoutMs: this.timeouts.requestMs,
      timeoutSetting: REQUEST_SETTING,
    };
  }
}
