import { z } from "zod";
import { BaseEnv, DatabaseEnv, parseEnv } from "@toolmesh/base";
import { PersistentQueueId, ServicePorts } from "@toolmesh/schema";

const cidrList = z
  .string()
  .default("")
  .transform((value) =>
    value
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().regex(/^[0-9a-fA-F:.]+\/\d{1,3}$/, "expected CIDR ranges like 127.0.0.0/8,::1/128")));

export const RegistryEnv = BaseEnv.extend({
  HTTP_PORT: BaseEnv.shape.HTTP_PORT.default(ServicePorts["tool-registry"]),
  ...DatabaseEnv.shape,
  /** Folder for the SQLite file (revisions, source states, announcements) when DATABASE_URL is unset. */
  REGISTRY_DATA_DIR: z.string().min(1).default("./data/tool-registry"),
  /** Bearer token for POST /admin/tools/refresh; unset = that route always answers 401. */
  REGISTRY_ADMIN_TOKEN: z.string().min(16, "use at least 16 characters").optional(),
  /** Time allowed for one manifest fetch, from connect to the last byte. */
  REGISTRY_FETCH_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
  /** Largest manifest accepted. */
  REGISTRY_MAX_MANIFEST_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(5 * 1024 * 1024),
  /** Internal ranges manifest URLs may reach (loopback and private are refused otherwise). */
  REGISTRY_ALLOWED_NETWORKS: cidrList,
  /** Persistent topic tool services announce their manifests on; unset: `persistent://<tenant>/flow/tool-announcements`. */
  TOOL_ANNOUNCE_TOPIC: PersistentQueueId.optional(),
  /** A service that has not announced itself for this long loses its announced tools (it re-announces every minute by default). */
  REGISTRY_ANNOUNCEMENT_TTL_MS: z.coerce.number().int().positive().default(300_000),
  /** Periodic refresh, so sources are re-read without any trigger; 0 turns it off. */
  REGISTRY_REFRESH_INTERVAL_MS: z.coerce.number().int().nonnegative().default(300_000),
  /** After a failed refresh (its database away, say), retries from 1 s, doubling up to this; 0 turns retries off. */
  REGISTRY_REFRESH_RETRY_MAX_MS: z.coerce.number().int().nonnegative().default(30_000),
});
export type RegistryEnv = z.output<typeof RegistryEnv>;

export const loadEnv = (source: NodeJS.ProcessEnv = process.env): RegistryEnv => parseEnv(RegistryEnv, source);
