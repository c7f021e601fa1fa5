import { type ConfigPush, ConfigRequest, type ConfigResponse, ErrorType, WorkspaceConfigOperations, ServiceError } from "@toolmesh/schema";
import { z } from "zod";
import type { ConfigStore } from "../store/index.js";
import { allWorkspaceOperations } from "./config-all-workspaces.js";
import { readOperations } from "./config-reads.js";
import { writeOperations } from "./config-writes.js";

/**
 * A request as the config service reads it: any operation name, so one it does not have gets TrustGraph's
 * `bad-operation` answer rather than a schema error.
 */
export const IncomingConfigRequest = ConfigRequest.extend({ operation: z.string().min(1) });
export type IncomingConfigRequest = z.output<typeof IncomingConfigRequest>;

export type ConfigReply = Partial<ConfigResponse>;
/**
 * One operation of the config protocol. `workspace` is the one it acts on: the request's own on the system
 * queue, the queue's on a per-workspace queue; the `*-all-ws` operations ignore it.
 */
export type ConfigOperationHandler = (request: IncomingConfigRequest, workspace: string) => ConfigReply | Promise<ConfigReply>;

export interface ConfigLimits {
  /** CONFIG_MAX_VALUE_BYTES: largest value of one item. */
  maxValueBytes: number;
  /** CONFIG_MAX_REPLY_BYTES: largest reply, and so the bound on one type's getvalues reply. */
  maxReplyBytes: number;
}

export interface ConfigHandlerDeps {
  store: ConfigStore;
  /** Publishes the change notification; awaited so a caller that saw the reply can rely on the push. */
  publish: (push: ConfigPush) => Promise<void>;
  /** Called after a write that registered or unregistered workspaces, before its push and reply. */
  workspacesChanged: () => Promise<void>;
  limits: ConfigLimits;
  /** This system's Pulsar tenant (TOOLMESH_TENANT): the topicspace of the queues a `topic` stands for. */
  tenant: string;
}

/** What a caller whose read is too large for one reply can do instead. */
const SMALLER_READ: Record<string, string> = {
  config: "read it type by type with 'getvalues'",
  getvalues: "read its keys with 'list' and 'get' a few at a time",
  get: "ask for fewer keys at a time",
  "getvalues-all-ws": "read 'getkeys-all-ws', then 'getvalues' one workspace at a time",
};

const lookup = <T>(table: Record<string, T>, name: string): T | undefined => (Object.hasOwn(table, name) ? table[name] : undefined);

const badOperation = (request: IncomingConfigRequest, where: string) =>
  new ServiceError(ErrorType.badOperation, `Bad operation '${request.operation}' ${where}`);

/**
 * Answers config requests (TrustGraph's protocol, design §2) on the system queue and on the per-workspace
 * queues. A reply larger than CONFIG_MAX_REPLY_BYTES is never sent: the broker would refuse it and the
 * caller would only see a timeout; it gets a `too-large` error instead.
 */
export function createConfigHandlers(deps: ConfigHandlerDeps) {
  const oneWorkspace: Record<string, ConfigOperationHandler> = { ...readOperations(deps.store), ...writeOperations(deps) };
  const allWorkspaces: Record<string, ConfigOperationHandler> = allWorkspaceOperations(deps.store);

  const bounded = async (request: IncomingConfigRequest, workspace: string, operation: ConfigOperationHandler): Promise<ConfigReply> => {
    const reply = await operation(request, workspace);
    const bytes = Buffer.byteLength(JSON.stringify(reply));
    if (bytes > deps.limits.maxReplyBytes) {
      const what =
        request.operation === "getvalues"
          ? `type '${request.type}' in workspace '${workspace}'`
          : `the '${request.operation}' reply for workspace '${workspace}'`;
      throw new ServiceError(
        ErrorType.tooLarge,
        `${what} is ${bytes} bytes, over CONFIG_MAX_REPLY_BYTES (${deps.limits.maxReplyBytes}); ${lookup(SMALLER_READ, request.operation) ?? "ask for less"}`,
      );
    }
    return reply;
  };

  return {
    /** The system queue (`request:tg:config`): every operation; one-workspace ones name it in the body. */
    system(request: IncomingConfigRequest): Promise<ConfigReply> {
      const across = lookup(allWorkspaces, request.operation);
      if (across) return bounded(request, "", across);
      const operation = lookup(oneWorkspace, request.operation);
      if (!operation) throw badOperation(request, "on the config queue");
      if (request.workspace === "") throw new ServiceError(ErrorType.badRequest, "Workspace is required");
      return bounded(request, request.workspace, operation);
    },
    /** A workspace's queue (`request:tg:config:<ws>`): one-workspace operations, on that workspace only. */
    workspace(workspace: string, request: IncomingConfigRequest): Promise<ConfigReply> {
      const operation = (WorkspaceConfigOperations as readonly string[]).includes(request.operation)
        ? lookup(oneWorkspace, request.operation)
        : undefined;
      if (!operation) throw badOperation(request, `on workspace '${workspace}''s config queue`);
      return bounded(request, workspace, operation);
    },
  };
}
