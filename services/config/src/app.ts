import { randomUUID } from "node:crypto";
import { type ServiceRuntime, measuredStore } from "@toolmesh/base";
import { decodeJson } from "@toolmesh/pulsar";
import { ConfigPush, type ConfigResponse, ErrorType, ServiceName, requestSubscription } from "@toolmesh/schema";
import type { ConfigEnv } from "./env.js";
import { IncomingConfigRequest, createConfigHandlers } from "./handlers/config-request.js";
import { type ConfigStore, openConfigStore } from "./store/index.js";
import { addTrustGraphQueuesAtStart } from "./tool-service-queues.js";
import { WorkspaceQueues } from "./workspace-queues.js";
import { pushFor, workspaceIdProblem } from "./workspaces.js";

export const SERVICE_ID = "config";

/**
 * Opens the store and serves TrustGraph's config protocol on `runtime`: the system queue (`config`, i.e.
 * `request:tg:config`) and one queue per registered workspace (`config:<ws>`); every change is pushed on
 * notify/config.
 */
export async function buildConfig(
  runtime: ServiceRuntime,
  env: ConfigEnv,
): Promise<{ store: ConfigStore; workspaceQueues: WorkspaceQueues }> {
  const store = measuredStore(await openConfigStore(env), runtime.metrics);
  runtime.logger.info(
    {
      store: store.location,
      version: await store.version(),
      maxValueBytes: env.CONFIG_MAX_VALUE_BYTES,
      maxReplyBytes: env.CONFIG_MAX_REPLY_BYTES,
    },
    "config store opened",
  );
  runtime.onShutdown(() => store.close());

  // The version last seen (error replies are synchronous and must not fail for a database hiccup).
  let lastVersion = await store.version();
  const publish = async (push: ConfigPush) => {
    lastVersion = Math.max(lastVersion, push.version);
    await runtime.pulsar.sendJson(runtime.topics.configNotify, push);
  };
  const errorReply = (error: ConfigResponse["error"]): Partial<ConfigResponse> => ({ version: lastVersion, error });
  const common = {
    subscription: requestSubscription(SERVICE_ID),
    requestSchema: IncomingConfigRequest,
    errorType: ErrorType.configError,
    errorReply,
    // Never answered "cut short, retry" at shutdown: a put told so could still commit, and its retry would
    // write a second version. Config requests take milliseconds; they finish before the timeout.
    windDown: null,
  };

  const workspaceQueues: WorkspaceQueues = new WorkspaceQueues({
    registered: () => store.workspaces(),
    serve: (workspace) => {
      return runtime.serve({
        ...common,
        ...runtime.topics.workspaceConfig(workspace),
        handler: (request) => handlers.workspace(workspace, request),
      });
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
    tenant: runtime.topics.tenant,
  });

  const queuesAdded = await addTrustGraphQueuesAtStart(store, runtime.topics.tenant);
  if (queuesAdded.workspaces.length > 0) {
    runtime.logger.info({ workspaces: queuesAdded.workspaces }, "added TrustGraph's queues to tool-service values that named only a topic");
  }

  const registered = await store.registerAtStart((workspace) => workspaceIdProblem(workspace) === null);
  if (registered) runtime.logger.info({ workspaces: registered.created }, "registered workspaces");
  await runtime.serve({ ...common, ...runtime.topics.pair(ServiceName.config), handler: (request) => handlers.system(request) });
  await workspaceQueues.sync();
  // Workspaces registered by another replica's writes (should several share a database) reach us as pushes.
  await runtime.pulsar.subscribe(
    { topic: runtime.topics.configNotify, subscription: `${SERVICE_ID}-workspaces-${randomUUID()}`, type: "Exclusive" },
    async (message) => {
      const decoded = decodeJson(ConfigPush, message.payload);
      if (!decoded.ok) return;
      lastVersion = Math.max(lastVersion, decoded.value.version);
      if (decoded.value.workspace_changes) await workspaceQueues.sync();
    },
  );
  // Now that requests are served: readers re-read at once what each push names.
  if (queuesAdded.push) await publish(queuesAdded.push);
  // TrustGraph's start-up poke ("empty changes = everything"); it also names the workspaces just registered.
  await publish(registered ? pushFor("", [], registered) : { version: await store.version(), changes: {}, workspace_changes: null });
  return { store, workspaceQueues };
}
