import { type ConfigValue, ErrorType, isReservedWorkspace, ServiceError } from "@toolmesh/schema";
import { TypeOverLimit } from "../store/index.js";
import { withTrustGraphQueues } from "../tool-service-queues.js";
import { descriptorProblem } from "../validate.js";
import { pushFor, registrationsIn, workspaceIdProblem } from "../workspaces.js";
import type { ConfigHandlerDeps, ConfigOperationHandler } from "./config-request.js";

function oversizedValues(values: ConfigValue[], maxValueBytes: number): string[] {
  return values.flatMap((item) => {
    const bytes = Buffer.byteLength(item.value);
    return bytes > maxValueBytes ? [`${item.type} '${item.key}' is ${bytes} bytes, over CONFIG_MAX_VALUE_BYTES (${maxValueBytes})`] : [];
  });
}

/**
 * The protocol's writes: put and delete. Each is one transaction with one version bump and one push naming
 * the types and workspaces it changed (see workspaces.ts for how workspaces come and go). A write of
 * nothing changes nothing: TrustGraph's flow-svc sends a put with no values when a flow's blueprint starts
 * no processors, and TrustGraph's own config service accepts it. Its reply names the current version, and
 * no version and no push are made for it (TrustGraph's processors would take an empty push for a start-up
 * poke and reload everything).
 */
export function writeOperations({ store, publish, workspacesChanged, limits, tenant }: ConfigHandlerDeps) {
  /** The workspaces a put registers: those it names in `__workspaces__`, or its own when not yet registered. */
  const toRegister = async (workspace: string, values: ConfigValue[]): Promise<string[]> => {
    const named = registrationsIn(workspace, values);
    const implicit = !isReservedWorkspace(workspace) && !(await store.workspaces()).includes(workspace) ? [workspace] : [];
    const problems = [...named, ...implicit].map(workspaceIdProblem).filter((p): p is string => p !== null);
    if (problems.length > 0) throw new ServiceError(ErrorType.badRequest, `put refused: ${problems.join("; ")}`);
    return implicit;
  };

  const announce = async (workspace: string, types: string[], result: Parameters<typeof pushFor>[2]) => {
    if (result.created.length > 0 || result.deleted.length > 0) await workspacesChanged();
    await publish(pushFor(workspace, types, result));
    return { version: result.version };
  };

  return {
    put: async ({ values }, workspace) => {
      if (values.length === 0) return { version: await store.version() };
      const oversized = oversizedValues(values, limits.maxValueBytes);
      if (oversized.length > 0) throw new ServiceError(ErrorType.tooLarge, `put refused: ${oversized.join("; ")}`);
      const problems = values.map(descriptorProblem).filter((p): p is string => p !== null);
      if (problems.length > 0) throw new ServiceError(ErrorType.configError, problems.join("; "));
      const register = await toRegister(workspace, values);
      const stored = values.map((item) => withTrustGraphQueues(item, tenant));
      try {
        const result = await store.write(workspace, { put: stored, register }, limits.maxReplyBytes);
        return await announce(workspace, [...new Set(values.map((v) => v.type))], result);
      } catch (err) {
        if (!(err instanceof TypeOverLimit)) throw err;
        throw new ServiceError(
          ErrorType.tooLarge,
          `put refused: type '${err.type}' in workspace '${workspace}' would need a ${err.bytes}-byte getvalues reply, ` +
            `over CONFIG_MAX_REPLY_BYTES (${err.limit}); delete or shrink items of that type first`,
        );
      }
    },
    // Keys that are not there are ignored, as TrustGraph does; the version still moves and a push goes out.
    delete: async ({ keys }, workspace) => {
      if (keys.length === 0) return { version: await store.version() };
      const result = await store.write(workspace, { delete: keys });
      return announce(workspace, [...new Set(keys.map((k) => k.type))], result);
    },
  } satisfies Record<string, ConfigOperationHandler>;
}
