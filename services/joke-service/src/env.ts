import { z } from "zod";
import { ToolServiceEnv, parseEnv, topicNameSchema } from "@toolmesh/base";
import { ServicePorts } from "@toolmesh/schema";

export const JokeEnv = ToolServiceEnv.extend({
  HTTP_PORT: ToolServiceEnv.shape.HTTP_PORT.default(ServicePorts["joke-service"]),
  /** Topic name: requests on non-persistent://tg/request/{JOKE_TOPIC}. */
  JOKE_TOPIC: topicNameSchema.default("joke"),
  /** Publish the manifest on the announcement topic at start (the registry picks it up). */
  JOKE_ANNOUNCE: z
    .enum(["true", "false"])
    .default("true")
    .transform((v) => v === "true"),
});
/** The topic JOKE_TOPIC defaults to; on it the service announces as plain `joke-service`. */
export const DEFAULT_JOKE_TOPIC = JokeEnv.shape.JOKE_TOPIC.parse(undefined);
export type JokeEnv = z.output<typeof JokeEnv>;

export const loadEnv = (source: NodeJS.ProcessEnv = process.env): JokeEnv => parseEnv(JokeEnv, source);
