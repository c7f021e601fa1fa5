import { DynamicToolService } from "@toolmesh/base";
import { type ManifestEntry, requestTopic, responseTopic } from "@toolmesh/schema";
import { JOKE_STYLES, chooseJoke, isJokeStyle } from "./jokes.js";

const TOPIC_SCHEMA = {
  type: "object",
  properties: { topic: { type: "string", minLength: 1, description: "What the joke is about" } },
  required: ["topic"],
  additionalProperties: false,
};

/** The seed's example tool service: `style` comes from the tool's config, `topic` from the arguments. */
export class JokeService extends DynamicToolService {
  readonly id = "joke-service";

  constructor(readonly topic: string) {
    super();
  }

  async invoke(_user: string, config: Record<string, unknown>, args: Record<string, unknown>): Promise<string> {
    const style = config.style ?? "pun";
    if (!isJokeStyle(style)) throw new Error(`unknown style '${String(style)}': use one of ${JOKE_STYLES.join(", ")}`);
    const topic = args.topic;
    if (typeof topic !== "string" || topic.trim() === "") throw new Error("argument 'topic' is required: a non-empty string");
    return chooseJoke(style, topic);
  }

  /** One tool per style; each binds this service's topic with its style as config. */
  override manifest(): ManifestEntry[] {
    return JOKE_STYLES.map((style) => ({
      tool_id: `joke-service.tell-${style}`,
      name: `tell-${style}`,
      description: `Tells a ${style.replace("-", " ")} about a topic`,
      parameters_schema: TOPIC_SCHEMA,
      binding: {
        kind: "tool-service",
        request_topic: requestTopic(this.topic),
        response_topic: responseTopic(this.topic),
        config: { style },
      },
    }));
  }
}
