import { type PulsarClient, RequestClient, type TraceContext } from "@toolmesh/pulsar";
import { ToolServiceRequest, ToolServiceResponse } from "@toolmesh/schema";

/** A tool service answered with an error reply. */
export class ToolServiceError extends Error {
  override name = "ToolServiceError";
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ToolServiceClientOptions {
  requestTopic: string;
  responseTopic: string;
  /** Default time allowed for a reply (and between the chunks of a stream). */
  timeoutMs?: number;
  subscriber?: string;
}

export interface CallOptions {
  timeoutMs?: number;
  /** The caller's span: the call's client span is its child, and the tool service continues the trace. */
  trace?: TraceContext | undefined;
}

/** Calls one tool service over Pulsar; used by the agent, the gateway and tests. */
export class ToolServiceClient {
  private constructor(private readonly requests: RequestClient<typeof ToolServiceResponse>) {}

  static async create(pulsar: PulsarClient, options: ToolServiceClientOptions): Promise<ToolServiceClient> {
    const requests = await RequestClient.create(pulsar, {
      requestTopic: options.requestTopic,
      responseTopic: options.responseTopic,
      responseSchema: ToolServiceResponse,
      subscriptionPrefix: options.subscriber ?? "tool-service-client",
      timeoutMs: options.timeoutMs ?? 30_000,
    });
    return new ToolServiceClient(requests);
  }

  /** The whole response: a streamed one is joined in order. Throws ToolServiceError on an error reply. */
  async call(user: string, config: Record<string, unknown>, args: Record<string, unknown>, options: CallOptions = {}): Promise<string> {
    let text = "";
    for await (const chunk of this.stream(user, config, args, options)) text += chunk;
    return text;
  }

  /** Each chunk as it arrives. */
  async *stream(
    user: string,
    config: Record<string, unknown>,
    args: Record<string, unknown>,
    options: CallOptions = {},
  ): AsyncGenerator<string> {
    const replies = this.requests.stream(ToolServiceRequest.encode({ user, config, arguments: args }), {
      isLast: (reply) => reply.end_of_stream || reply.error !== null,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      trace: options.trace,
    });
    for await (const reply of replies) {
      if (reply.error) throw new ToolServiceError(reply.error.type, reply.error.message);
      yield reply.response;
    }
  }

  close(): Promise<void> {
    return this.requests.close();
  }
}
