import { ReplyError } from "@toolmesh/pulsar";
import { type ConfigOperation, type ConfigPush, type ConfigRequest, type ConfigResponse, ErrorType } from "@toolmesh/schema";
import type { ConfigStore } from "../store.js";
import { readOperations } from "./config-reads.js";
import { writeOperations } from "./config-writes.js";

export type ConfigReply = Partial<ConfigResponse>;
/** One operation of the config protocol; a new one (e.g. TrustGraph's `*-all-ws`) is one more entry. */
export type ConfigOperationHandler = (request: ConfigRequest) => ConfigReply | Promise<ConfigReply>;

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
  limits: ConfigLimits;
}

/** What a caller whose read is too large for one reply can do instead. */
const SMALLER_READ: Partial<Record<ConfigOperation, string>> = {
  config: "read it type by type with 'getvalues'",
  getvalues: "read its keys with 'list' and 'get' a few at a time",
  get: "ask for fewer keys at a time",
};

/**
 * Answers one config request (design §2). A reply larger than CONFIG_MAX_REPLY_BYTES is never sent: the
 * broker would refuse it and the caller would only see a timeout; it gets a `too-large` error instead.
 */
export function createConfigHandler(deps: ConfigHandlerDeps) {
  const operations: Record<ConfigOperation, ConfigOperationHandler> = { ...readOperations(deps.store), ...writeOperations(deps) };
  return async (request: ConfigRequest): Promise<ConfigReply> => {
    const reply = await operations[request.operation](request);
    const bytes = Buffer.byteLength(JSON.stringify(reply));
    if (bytes > deps.limits.maxReplyBytes) {
      const what = request.operation === "getvalues" ? `type '${request.type}' in workspace '${request.workspace}'` : `the '${request.operation}' reply for workspace '${request.workspace}'`;
      throw new ReplyError(
        ErrorType.tooLarge,
        `${what} is ${bytes} bytes, over CONFIG_MAX_REPLY_BYTES (${deps.limits.maxReplyBytes}); ${SMALLER_READ[request.operation] ?? "ask for less"}`,
      );
    }
    return reply;
  };
}
