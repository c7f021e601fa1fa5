import { z } from "zod";
import { BaseEnv, parseEnv } from "@toolmesh/base";
import { PersistentQueueId, ServicePorts, Topics } from "@toolmesh/schema";

export const JokeEnv = BaseEnv.extend({
  HTTP_PORT: BaseEnv.shape.HTTP_PORT.default(ServicePorts["joke-service"]),
  /** Topic name: requests on non-persistent://tg/request/{JOKE_TOPIC}. */
  JOKE_TOPIC: z.string().regex(/^[A-Za-z0-9_.-]+$/).default("joke"),
  /** Publish the manifest on the announcement topic at start (the registry picks it up). */
  JOKE_ANNOUNCE: z.enum(["true", "false"]).default("true").transform((v) => v === "true"),
  /** How often the manifest is announced again (a registry forgets services that stop announcing). */
  TOOL_ANNOUNCE_INTERVAL_MS: z.coerce.number().int().positive().default(60_000),
  /** Persistent topic to announce on (the registry reads the same one). */
  TOOL_ANNOUNCE_TOPIC: PersistentQueueId.default(Topics.toolAnnouncements),
});
export type JokeEnv = z.output<typeof JokeEnv>;

export const loadEnv = (source: NodeJS.ProcessEnv = process.env): JokeEnv => parseEnv(JokeEnv, source);
