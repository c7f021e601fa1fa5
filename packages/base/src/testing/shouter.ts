import { DynamicToolService } from "../dynamic-tool-service.js";
import { type CatalogRevision, TopicLayout } from "@toolmesh/schema";

/** A sample tool service for the unit tier: upper-cases `text` and appends its config's `suffix` (topic `shout`). */
export class Shouter extends DynamicToolService {
  readonly id = "shouter";
  readonly topic = "shout";
  async invoke(_user: string, config: Record<string, unknown>, args: Record<string, unknown>) {
    return `${String(args.text).toUpperCase()}${String(config.suffix ?? "")}`;
  }
}

const shout = new TopicLayout().pair("shout");

/** Catalog revision 3: the one tool `shout`, bound to the Shouter with suffix "!". */
export const shoutRevision: CatalogRevision = {
  revision_number: 3,
  content_hash: "h3",
  created_at: "2026-12-03T00:00:00.000Z",
  tool_count: 1,
  tools: [
    {
      tool_id: "shout",
      name: "shout",
      description: "Shouts the text",
      parameters_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false },
      binding: { kind: "tool-service", request_topic: shout.requestTopic, response_topic: shout.responseTopic, config: { suffix: "!" } },
      source: "config",
      content_hash: "t1",
    },
  ],
};
