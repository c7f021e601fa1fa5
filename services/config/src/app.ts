import { randomUUID } from "node:crypto";
import { join } from "node:path";
import type { ServiceRuntime } from "@toolmesh/base";
import { decodeJson } from "@toolmesh/pulsar";
import {
  ConfigPush,
  type ConfigResponse,
  ServiceName,
  Topics,
  requestSubscription,
  requestTopic,
  responseTopic,
  workspaceConfigTopics,
} from "@toolmesh/schema";
import type { ConfigEnv } from "./env.js";
import { IncomingConfigRequest, createConfigHandlers } from "./handlers/config-request.js";
import { ConfigStore } from "./store.js";
import { WorkspaceQueues } from "./workspace-queues.js";
import { pushFor, workspaceIdProblem } from "./workspaces.js";

export const SERVICE_ID = "config";

/**
 * Opens the store and serves TrustGraph's config protocol on `runtime`: the system queue (`config`, i.e.
 * `request:tg:config`) and one queue per registered workspace (`config:<ws>`); every change is pushed on
 * notify/config.
 */
export async function buildConfig(runtime: ServiceRuntime, env: ConfigEnv): Promise<{ store: ConfigStore; workspaceQueues: WorkspaceQueues }> {
  const store = ConfigStore.open(env.CONFIG_DATA_DIR);
  runtime.logger.info(
    { file: join(env.CONFIG_DATA_DIR, "config.db"), version: store.version, maxValueBytes: env.CONFIG_MAX_VALUE_BYTES, maxReplyBytes: env.CONFIG_MAX_REPLY_BYTES },
    "config store opened",
  );
  runtime.onShutdown(() => store.close());

  const publish = async (push: ConfigPush) => {
    await runtime.pulsar.sendJson(Topics.configNotify, push);
  };
  const errorReply = (error: ConfigResponse["error"]): Partial<ConfigResponse> => ({ version: store.version, error });
  const common = { subscription: requestSubscription(SERVICE_ID), requestSchema: IncomingConfigRequest, errorType: "config-error", errorReply };

  const workspaceQueues: WorkspaceQueues = new WorkspaceQueues({
    registered: () => store.workspaces(),
    serve: (workspace) => {
      const topics = workspaceConfigTopics(workspace);
      return runtime.serve({ ...common, requestTopic: topics.request, responseTopic: topics.response, handler: (request) => handlers.workspace(workspace, request) });
    },
    logger: runtime.logger,
  });
  runtime.onShutdown(() => workspaceQueues.close());
  runtime.addReadinessCheck("workspace-queues", () => workspaceQueues.complete);

  const handlers = createConfigHandlers({
    store,
    limits: { maxValueBytes: env.CONFIG_MAX_VALUE_BYTES, maxReplyBytes: env.CONFIG_MAX_REPLY_BYTES },
    publish,
    workspacesChanged: () => workspaceQueues.sync(),
  });

  const registered = store.registerAtStart((workspace) => workspaceIdProblem(workspace) === null);
  if (registered) runtime.logger.info({ workspaces: registered.created }, "registered workspaces");
  await runtime.serve({ ...common, requestTopic: requestTopic(ServiceName.config), responseTopic: responseTopic(ServiceName.config), handler: (request) => handlers.system(request) });
  await workspaceQueues.sync();
  // Workspaces registered by another replica's writes (should several share a database) reach us as pushes.
  await runtime.pulsar.subscribe(
    { topic: Topics.configNotify, subscription: `${SERVICE_ID}-workspaces-${randomUUID()}`, type: "Exclusive" },
    async (message) => {
      const decoded = decodeJson(ConfigPush, message.payload);
      if (decoded.ok && decoded.value.workspace_changes) await workspaceQueues.sync();
    },
  );
  // TrustGraph's start-up poke ("empty changes = everything"); it also names the workspaces just registered.
  await publish(registered ? pushFor("", [], registered) : { version: store.version, changes: {}, workspace_changes: null });
  return { store, workspaceQueues };
}
