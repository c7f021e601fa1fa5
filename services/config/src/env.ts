import { z } from "zod";
import { BaseEnv, parseEnv } from "@toolmesh/base";
import { ServicePorts } from "@toolmesh/schema";

export const ConfigEnv = BaseEnv.extend({
  HTTP_PORT: BaseEnv.shape.HTTP_PORT.default(ServicePorts.config),
  /** Folder for the SQLite file (created if missing); state survives restarts. */
  CONFIG_DATA_DIR: z.string().min(1).default("./data/config"),
});
export type ConfigEnv = z.output<typeof ConfigEnv>;

export const loadEnv = (source: NodeJS.ProcessEnv = process.env): ConfigEnv => parseEnv(ConfigEnv, source);
