/**
 * Topic names (design §2). Requests and replies travel on non-persistent topics in tenant `tg`;
 * pushes on `tg/notify`; tool-service manifests are announced on a persistent topic so that a registry
 * started later still reads them.
 */
/**
 * The Pulsar tenant: `tg` (TrustGraph's) unless TOOLMESH_TENANT says otherwise — for running separate
 * systems on one broker (e.g. each test file in its own tenant). Read once, when this module loads.
 */
export const TENANT = tenantFromEnv(process.env.TOOLMESH_TENANT);

export function tenantFromEnv(value: string | undefined): string {
  if (value === undefined || value === "") return "tg";
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(value)) throw new Error(`TOOLMESH_TENANT='${value}' is not a valid tenant name (A-Z, a-z, 0-9, '_', '-')`);
  return value;
}

export const Namespace = {
  request: "request",
  response: "response",
  notify: "notify",
  flow: "flow",
} as const;

/** Service names with a request/response topic pair. */
export const ServiceName = {
  config: "config",
  agent: "agent",
  mcpTool: "mcp-tool",
  toolRegistry: "tool-registry",
  agentRuns: "agent-runs",
} as const;

export function requestTopic(name: string): string {
  return `non-persistent://${TENANT}/${Namespace.request}/${name}`;
}

export function responseTopic(name: string): string {
  return `non-persistent://${TENANT}/${Namespace.response}/${name}`;
}

export function notifyTopic(name: string): string {
  return `non-persistent://${TENANT}/${Namespace.notify}/${name}`;
}

export const Topics = {
  configNotify: notifyTopic("config"),
  toolRegistryNotify: notifyTopic("tool-registry"),
  /** Persistent: a registry that starts after a tool service still reads its announcement. */
  toolAnnouncements: `persistent://${TENANT}/${Namespace.flow}/tool-announcements`,
} as const;

/** The Shared subscription every replica of a service uses on its request topic. */
export function requestSubscription(serviceId: string): string {
  return `${serviceId}-request`;
}

export interface ParsedTopic {
  persistence: "persistent" | "non-persistent";
  tenant: string;
  namespace: string;
  topic: string;
}

const TOPIC_PATTERN = /^(persistent|non-persistent):\/\/([^/]+)\/([^/]+)\/([^/]+)$/;

/** Splits `non-persistent://tg/request/joke` into its parts; a bare name means `persistent://public/default/name`. */
export function parseTopic(name: string): ParsedTopic {
  const match = TOPIC_PATTERN.exec(name);
  if (match) {
    const [, persistence, tenant, namespace, topic] = match as unknown as [
      string,
      ParsedTopic["persistence"],
      string,
      string,
      string,
    ];
    return { persistence, tenant, namespace, topic };
  }
  if (/^[^/:]+$/.test(name)) {
    return { persistence: "persistent", tenant: "public", namespace: "default", topic: name };
  }
  throw new Error(`invalid topic name '${name}': expected {persistent|non-persistent}://tenant/namespace/topic`);
}

/** TrustGraph's queue classes and the persistence each maps to (its `AsyncPulsarBackend._map_topic`). */
const QUEUE_CLASS_PERSISTENCE: Record<string, ParsedTopic["persistence"]> = {
  flow: "persistent",
  request: "non-persistent",
  response: "non-persistent",
  notify: "non-persistent",
};

/**
 * The Pulsar topic a queue named in configuration means, as TrustGraph maps it: a TrustGraph queue id
 * `class:topicspace:topic` becomes `{persistent|non-persistent}://topicspace/class/topic` (`flow` is
 * persistent; `request`, `response` and `notify` are not), and a full topic name (anything with `://`) is
 * used as written. The topicspace is the tenant, as written: `request:tg:joke` is in tenant `tg` whatever
 * TOOLMESH_TENANT says. Throws, naming the queue, for anything Pulsar could not use.
 *   request:tg:joke            -> non-persistent://tg/request/joke
 *   request:tg:config:default  -> non-persistent://tg/request/config:default
 *   flow:tg:x                  -> persistent://tg/flow/x
 *   non-persistent://tg/request/joke (unchanged)
 */
export function queueTopic(queue: string): string {
  if (queue.includes("://")) {
    if (!TOPIC_PATTERN.test(queue)) throw new Error(`invalid topic name '${queue}': expected {persistent|non-persistent}://tenant/namespace/topic`);
    return queue;
  }
  const first = queue.indexOf(":");
  const second = first < 0 ? -1 : queue.indexOf(":", first + 1);
  if (second < 0) {
    throw new Error(`invalid topic name '${queue}': expected class:topicspace:topic (e.g. request:tg:joke) or a full topic name (non-persistent://tg/request/joke)`);
  }
  const cls = queue.slice(0, first);
  const persistence = Object.hasOwn(QUEUE_CLASS_PERSISTENCE, cls) ? QUEUE_CLASS_PERSISTENCE[cls] : undefined;
  if (!persistence) {
    throw new Error(`invalid topic name '${queue}': class '${cls}' is not one of flow, request, response, notify`);
  }
  const topic = `${persistence}://${queue.slice(first + 1, second)}/${cls}/${queue.slice(second + 1)}`;
  if (!TOPIC_PATTERN.test(topic)) throw new Error(`invalid topic name '${queue}': its topicspace and topic must be non-empty and have no '/'`);
  return topic;
}
