import { DynamicToolService, ServiceRuntime, type ToolResult } from "@toolmesh/base";
import { BaseEnv } from "@toolmesh/base";
import { type ManifestEntry } from "@toolmesh/schema";
import { requestTopic, responseTopic } from "@toolmesh/test-support";

export const STREAM_TOOLS = ["count-up", "weather-report"];

/**
 * A tool service started by a test (in-process), announcing itself: `count-up` streams "1 ", "2 ", ... as
 * chunks; `weather-report` answers a JSON object and declares an output schema and annotations. Both are in
 * group "streams".
 */
export class StreamService extends DynamicToolService {
  readonly id = "stream-service";
  readonly topic = "stream-service";

  invoke(_user: string, _config: Record<string, unknown>, args: Record<string, unknown>): Promise<ToolResult> | AsyncIterable<ToolResult> {
    if (typeof args.city === "string") return Promise.resolve({ city: args.city, celsius: 21 });
    const to = Number(args.to);
    return (async function* () {
      for (let n = 1; n <= to; n++) yield n < to ? `${n} ` : `${n}`;
    })();
  }

  override manifest(): ManifestEntry[] {
    const binding = {
      kind: "tool-service" as const,
      request_topic: requestTopic(this.topic),
      response_topic: responseTopic(this.topic),
      config: {},
    };
    return [
      {
        tool_id: "stream-service.count-up",
        name: "count-up",
        description: "Counts from 1 to `to`, one chunk per number",
        parameters_schema: { type: "object", properties: { to: { type: "integer", minimum: 1, maximum: 20 } }, required: ["to"] },
        binding,
        group: ["streams"],
      },
      {
        tool_id: "stream-service.weather-report",
        name: "weather-report",
        description: "Today's weather in a city, as JSON",
        parameters_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        output_schema: {
          type: "object",
          properties: { city: { type: "string" }, celsius: { type: "number" } },
          required: ["city", "celsius"],
        },
        annotations: { title: "Weather report", readOnlyHint: true },
        binding,
        group: ["streams"],
      },
    ];
  }

  /** Serves and announces in this process; returns the runtime to stop. */
  static async run(webServiceUrl: string): Promise<ServiceRuntime> {
    const env = BaseEnv.parse({
      PULSAR_WEB_URL: webServiceUrl,
      TOOLMESH_TENANT: process.env.TOOLMESH_TENANT,
      HTTP_PORT: "0",
      LOG_LEVEL: "warn",
    });
    const runtime = new ServiceRuntime({ name: "stream-service", env });
    await new StreamService().start(runtime);
    return runtime;
  }
}
