import { join } from "node:path";
import type { ServiceRuntime } from "@toolmesh/base";
import { ConfigRequest, type ConfigResponse, ServiceName, Topics, requestSubscription, requestTopic, responseTopic } from "@toolmesh/schema";
import type { ConfigEnv } from "./env.js";
import { createConfigHandler } from "./handlers/config-request.js";
import { ConfigStore } from "./store.js";

export const SERVICE_ID = "config";

/** Opens the store and serves the config topic on `runtime`; every change is pushed on notify/config. */
export async function buildConfig(runtime: ServiceRuntime, env: ConfigEnv): Promise<{ store: ConfigStore }> {
  const store = ConfigStore.open(env.CONFIG_DATA_DIR);
  runtime.logger.info(
    { file: join(env.CONFIG_DATA_DIR, "config.db"), version: store.version, maxValueBytes: env.CONFIG_MAX_VALUE_BYTES, maxReplyBytes: env.CONFIG_MAX_REPLY_BYTES },
    "config store opened",
  );
  runtime.onShutdown(() => store.close());

  const handler = createConfigHandler({
    store,
    limits: { maxValueBytes: env.CONFIG_MAX_VALUE_BYTES, maxReplyBytes: env.CONFIG_MAX_REPLY_BYTES },
    publish: async (push) => {
      await runtime.pulsar.sendJson(Topics.configNotify, push);
    },
  });

  await runtime.serve({
    requestTopic: requestTopic(ServiceName.config),
    responseTopic: responseTopic(ServiceName.config),
    subscription: requestSubscription(SERVICE_ID),
    requestSchema: ConfigRequest,
    errorType: "config-error",
    errorReply: (error): Partial<ConfigResponse> => ({ version: store.version, error }),
    handler,
  });
  return { store };
}
