import { ReplyError } from "@toolmesh/pulsar";
import { type ConfigPush, type ConfigRequest, type ConfigResponse, ErrorType } from "@toolmesh/schema";
import type { ConfigStore } from "../store.js";
import { descriptorProblem } from "../validate.js";

type Reply = Partial<ConfigResponse>;

export interface ConfigHandlerDeps {
  store: ConfigStore;
  /** Publishes the change notification; awaited so a caller that saw the reply can rely on the push. */
  publish: (push: ConfigPush) => Promise<void>;
}

const notFound = "not-found";

/** Answers one config request (design §2): get, list, getvalues, put, delete, config. */
export function createConfigHandler({ store, publish }: ConfigHandlerDeps) {
  const requireType = (request: ConfigRequest): string => {
    if (!request.type) throw new ReplyError(ErrorType.badRequest, `'${request.operation}' needs a 'type'`);
    return request.type;
  };

  const changed = async (version: number, types: Iterable<string>, workspace: string) => {
    const changes = Object.fromEntries([...new Set(types)].map((type) => [type, [workspace]]));
    await publish({ version, changes });
  };

  return async (request: ConfigRequest): Promise<Reply> => {
    const { workspace } = request;
    switch (request.operation) {
      case "get": {
        if (request.keys.length === 0) throw new ReplyError(ErrorType.badRequest, "'get' needs at least one key");
        const { values, missing } = store.get(workspace, request.keys);
        if (missing.length > 0) {
          const names = missing.map((k) => `${k.type} '${k.key}'`).join(", ");
          throw new ReplyError(notFound, `no ${names} in workspace '${workspace}'`);
        }
        return { version: store.version, values };
      }
      case "list":
        return { version: store.version, directory: store.keys(workspace, requireType(request)) };
      case "getvalues":
        return { version: store.version, values: store.values(workspace, requireType(request)) };
      case "config":
        return { version: store.version, config: store.all(workspace) };
      case "put": {
        if (request.values.length === 0) throw new ReplyError(ErrorType.badRequest, "'put' needs at least one value");
        const problems = request.values.map(descriptorProblem).filter((p): p is string => p !== null);
        if (problems.length > 0) throw new ReplyError(ErrorType.configError, problems.join("; "));
        const version = store.put(workspace, request.values);
        await changed(version, request.values.map((v) => v.type), workspace);
        return { version };
      }
      case "delete": {
        if (request.keys.length === 0) throw new ReplyError(ErrorType.badRequest, "'delete' needs at least one key");
        const { missing } = store.get(workspace, request.keys);
        if (missing.length > 0) {
          const names = missing.map((k) => `${k.type} '${k.key}'`).join(", ");
          throw new ReplyError(notFound, `cannot delete ${names}: not in workspace '${workspace}'`);
        }
        const version = store.delete(workspace, request.keys);
        await changed(version, request.keys.map((k) => k.type), workspace);
        return { version };
      }
    }
  };
}
