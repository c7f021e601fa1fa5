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
export type JokeEnv = z.output<typeof JokeEnv>;

export const loadEnv = (source: NodeJS.ProcessEnv = process.env): JokeEnv => parseEnv(JokeEnv, source);
