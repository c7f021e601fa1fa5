import { ToolServiceClient, ToolServiceError } from "@toolmesh/base";
import { type PulsarClient, RequestClient } from "@toolmesh/pulsar";
import { type CatalogTool, McpToolResponse, type TopicLayout } from "@toolmesh/schema";

/** What a tool gave back: text, a JSON object, or MCP content parts (an mcp-tool's images and the like). */
export type ToolOutput =
  | { kind: "text"; text: string }
  | { kind: "json"; value: Record<string, unknown> }
  | { kind: "content"; parts: Array<Record<string, unknown>> };

/** A tool answered with an error of its own (not a transport failure). */
export class ToolFailure extends Error {
  override name = "ToolFailure";
}

export interface InvokeOptions {
  timeoutMs: number;
  /** Each streamed chunk of a tool-service reply, as it arrives. */
  onChunk?: (chunk: string, index: number) => void;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Text that is a JSON object is JSON; anything else stays text. */
export function classifyText(text: string): ToolOutput {
  const trimmed = text.trim();
  if (trimmed.startsWith("{")) {
    try {
      const value: unknown = JSON.parse(trimmed);
      if (isPlainObject(value)) return { kind: "json", value };
    } catch {
      // not JSON: text
    }
  }
  return { kind: "text", text };
}

function mcpToolOutput(reply: McpToolResponse): ToolOutput {
  if (reply.text !== null) return { kind: "text", text: reply.text };
  if (reply.object === null) return { kind: "text", text: "" };
  const value: unknown = JSON.parse(reply.object);
  if (isPlainObject(value)) return { kind: "json", value };
  // The mcp-tool service sends a remote tool's non-text content parts as a JSON array: pass them on.
  if (Array.isArray(value) && value.every((part) => isPlainObject(part) && typeof part.type === "string")) {
    return { kind: "content", parts: value as Array<Record<string, unknown>> };
  }
  return { kind: "text", text: reply.object };
}

/**
 * Calls a catalog tool through its binding over Pulsar: tool services on their own topics (one
 * ToolServiceClient per topic pair, reused), MCP tools through the mcp-tool service.
 */
export class BindingInvoker {
  private readonly toolServices = new Map<string, Promise<ToolServiceClient>>();
  private mcp: Promise<RequestClient<typeof McpToolResponse>> | undefined;

  constructor(
    private readonly pulsar: PulsarClient,
    /** The system's topics: toolmesh's mcp-tool service (MCP_TOOL_TOPIC). */
    private readonly topics: TopicLayout,
    private readonly subscriber: string,
  ) {}

  async invoke(tool: CatalogTool, args: Record<string, unknown>, options: InvokeOptions): Promise<ToolOutput> {
    const { binding } = tool;
    switch (binding.kind) {
      case "tool-service": {
        const client = await this.toolService(binding.request_topic, binding.response_topic, options.timeoutMs);
        let text = "";
        let index = 0;
        try {
          for await (const chunk of client.stream("", binding.config, args, { timeoutMs: options.timeoutMs })) {
            text += chunk;
            options.onChunk?.(chunk, index++);
          }
        } catch (err) {
          if (err instanceof ToolServiceError) throw new ToolFailure(err.message);
          throw err;
        }
        return classifyText(text);
      }
      case "mcp-tool": {
        const client = await this.mcpClient(options.timeoutMs);
        const reply = await client.request({ name: binding.mcp_tool, parameters: JSON.stringify(args) }, { timeoutMs: options.timeoutMs });
        if (reply.error) throw new ToolFailure(reply.error.message);
        return mcpToolOutput(reply);
      }
      case "text-completion":
        throw new ToolFailure("text-completion tools need the agent's LLM; call them through the agent");
    }
  }

  async close(): Promise<void> {
    const clients = await Promise.allSettled([...this.toolServices.values(), ...(this.mcp ? [this.mcp] : [])]);
    await Promise.all(clients.map((c) => (c.status === "fulfilled" ? c.value.close() : undefined)));
  }

  private toolService(request: string, response: string, timeoutMs: number): Promise<ToolServiceClient> {
    const key = `${request} ${response}`;
    let client = this.toolServices.get(key);
    if (!client) {
      client = ToolServiceClient.create(this.pulsar, {
        requestTopic: request,
        responseTopic: response,
        subscriber: `${this.subscriber}-tool`,
        timeoutMs,
      });
      client.catch(() => this.toolServices.delete(key));
      this.toolServices.set(key, client);
    }
    return client;
  }

  private mcpClient(timeoutMs: number): Promise<RequestClient<typeof McpToolResponse>> {
    if (!this.mcp) {
      this.mcp = RequestClient.create(this.pulsar, {
        ...this.topics.mcpTool,
        responseSchema: McpToolResponse,
        subscriptionPrefix: `${this.subscriber}-mcp-tool`,
        timeoutMs,
      });
      this.mcp.catch(() => (this.mcp = undefined));
    }
    return this.mcp;
  }
}
