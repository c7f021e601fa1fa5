import { ReplyError } from "@toolmesh/pulsar";
import { type ConfigValue, ErrorType } from "@toolmesh/schema";
import { TypeOverLimit } from "../store.js";
import { descriptorProblem } from "../validate.js";
import { NOT_FOUND } from "./config-reads.js";
import type { ConfigHandlerDeps, ConfigOperationHandler } from "./config-request.js";

function oversizedValues(values: ConfigValue[], maxValueBytes: number): string[] {
  return values.flatMap((item) => {
    const bytes = Buffer.byteLength(item.value);
    return bytes > maxValueBytes ? [`${item.type} '${item.key}' is ${bytes} bytes, over CONFIG_MAX_VALUE_BYTES (${maxValueBytes})`] : [];
  });
}

/** The protocol's writes: put and delete. Each bumps the version once and publishes one push. */
export function writeOperations({ store, publish, limits }: ConfigHandlerDeps) {
  const changed = async (version: number, types: Iterable<string>, workspace: string) => {
    const changes = Object.fromEntries([...new Set(types)].map((type) => [type, [workspace]]));
    await publish({ version, changes });
  };

  return {
    put: async ({ workspace, values }) => {
      if (values.length === 0) throw new ReplyError(ErrorType.badRequest, "'put' needs at least one value");
      const oversized = oversizedValues(values, limits.maxValueBytes);
      if (oversized.length > 0) throw new ReplyError(ErrorType.tooLarge, `put refused: ${oversized.join("; ")}`);
      const problems = values.map(descriptorProblem).filter((p): p is string => p !== null);
      if (problems.length > 0) throw new ReplyError(ErrorType.configError, problems.join("; "));
      let version: number;
      try {
        version = store.put(workspace, values, limits.maxReplyBytes);
      } catch (err) {
        if (!(err instanceof TypeOverLimit)) throw err;
        throw new ReplyError(
          ErrorType.tooLarge,
          `put refused: type '${err.type}' in workspace '${workspace}' would need a ${err.bytes}-byte getvalues reply, ` +
            `over CONFIG_MAX_REPLY_BYTES (${err.limit}); delete or shrink items of that type first`,
        );
      }
      await changed(version, values.map((v) => v.type), workspace);
      return { version };
    },
    delete: async ({ workspace, keys }) => {
      if (keys.length === 0) throw new ReplyError(ErrorType.badRequest, "'delete' needs at least one key");
      const { missing } = store.get(workspace, keys);
      if (missing.length > 0) {
        const names = missing.map((k) => `${k.type} '${k.key}'`).join(", ");
        throw new ReplyError(NOT_FOUND, `cannot delete ${names}: not in workspace '${workspace}'`);
      }
      const version = store.delete(workspace, keys);
      await changed(version, keys.map((k) => k.type), workspace);
      return { version };
    },
  } satisfies Record<string, ConfigOperationHandler>;
}
