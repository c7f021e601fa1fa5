import { z } from "zod";
import { BaseEnv, DatabaseEnv, parseEnv } from "@toolmesh/base";
import { ServicePorts } from "@toolmesh/schema";

const MiB = 1024 * 1024;

export const ConfigEnv = BaseEnv.extend({
  HTTP_PORT: BaseEnv.shape.HTTP_PORT.default(ServicePorts.config),
  ...DatabaseEnv.shape,
  /** Folder for the SQLite file (created if missing) when DATABASE_URL is unset; state survives restarts. */
  CONFIG_DATA_DIR: z.string().min(1).default("./data/config"),
  /** Largest value one item may have (UTF-8 bytes of its JSON string); a put with a larger one is refused. */
  CONFIG_MAX_VALUE_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1 * MiB),
  /**
   * Largest reply config sends, and so the bound on one type's values in one workspace (their `getvalues`
   * reply): a put that would push a type past it is refused. Keep it under the broker's maxMessageSize
   * (5 MiB by default, 6 MiB in infra/), with room for the envelope.
   */
  CONFIG_MAX_REPLY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(4 * MiB),
}).superRefine((env, ctx) => {
  if (env.CONFIG_MAX_VALUE_BYTES >= env.CONFIG_MAX_REPLY_BYTES) {
    ctx.addIssue({
      code: "custom",
      path: ["CONFIG_MAX_VALUE_BYTES"],
      message: `must be smaller than CONFIG_MAX_REPLY_BYTES (${env.CONFIG_MAX_REPLY_BYTES}): one value has to fit in a reply`,
    });
  }
});
export type ConfigEnv = z.output<typeof ConfigEnv>;

export const loadEnv = (source: NodeJS.ProcessEnv = process.env): ConfigEnv => parseEnv(ConfigEnv, source);
