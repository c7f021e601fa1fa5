import { TENANT_NAME_RULE, isTenantName } from "./tenant-name.js";

/** TrustGraph's tenant, and toolmesh's unless TOOLMESH_TENANT names another. */
export const DEFAULT_TENANT = "tg";

/** TOOLMESH_TENANT's value as a tenant (empty or unset: `tg`); throws naming the variable when invalid. */
export function tenantFromEnv(value: string | undefined): string {
  if (value === undefined || value === "") return DEFAULT_TENANT;
  if (!isTenantName(value)) throw new Error(`TOOLMESH_TENANT='${value}' is not a valid tenant name (${TENANT_NAME_RULE})`);
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

export interface TopicPair {
  requestTopic: string;
  responseTopic: string;
}

export interface TopicLayoutOptions {
  /** The Pulsar tenant every toolmesh topic is in (TOOLMESH_TENANT). */
  tenant?: string;
  /** The mcp-tool service's topic name (MCP_TOOL_TOPIC): whoever calls it and mcp-tool itself agree on it. */
  mcpTool?: string;
}

/**
 * Where everything travels (design §2): requests and replies on non-persistent topics
 * `non-persistent://<tenant>/{request,response}/<name>`, pushes on `<tenant>/notify`, tool-service
 * announcements on one persistent topic so a registry started later still reads them. Built once from a
 * service's validated environment (ServiceRuntime.topics) and passed to whatever needs a topic, so every
 * part of one system agrees on the tenant and on MCP_TOOL_TOPIC.
 */
export class TopicLayout {
  readonly tenant: string;
  readonly mcpToolName: string;

  constructor(options: TopicLayoutOptions = {}) {
    this.tenant = options.tenant ?? DEFAULT_TENANT;
    if (!isTenantName(this.tenant)) throw new Error(`'${this.tenant}' is not a valid tenant name (${TENANT_NAME_RULE})`);
    this.mcpToolName = options.mcpTool ?? ServiceName.mcpTool;
  }

  request(name: string): string {
    return `non-persistent://${this.tenant}/${Namespace.request}/${name}`;
  }

  response(name: string): string {
    return `non-persistent://${this.tenant}/${Namespace.response}/${name}`;
  }

  notify(name: string): string {
    return `non-persistent://${this.tenant}/${Namespace.notify}/${name}`;
  }

  /** The request and response topics of a service (or a tool-service topic name). */
  pair(name: string): TopicPair {
    return { requestTopic: this.request(name), responseTopic: this.response(name) };
  }

  /** The mcp-tool service's pair, under MCP_TOOL_TOPIC's name. */
  get mcpTool(): TopicPair {
    return this.pair(this.mcpToolName);
  }

  /** One workspace's own config queues, as TrustGraph names them: `request:tg:config:<ws>`. */
  workspaceConfig(workspace: string): TopicPair {
    return this.pair(`config:${workspace}`);
  }

  /** One workspace's flow-service queues (TrustGraph's flow-svc serves them): `request:tg:flow:<ws>`. */
  workspaceFlow(workspace: string): TopicPair {
    return this.pair(`flow:${workspace}`);
  }

  get configNotify(): string {
    return this.notify("config");
  }

  get toolRegistryNotify(): string {
    return this.notify("tool-registry");
  }

  /** Persistent: a registry that starts after a tool service still reads its announcement. */
  get toolAnnouncements(): string {
    return `persistent://${this.tenant}/${Namespace.flow}/tool-announcements`;
  }
}

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
    const [, persistence, tenant, namespace, topic] = match as unknown as [string, ParsedTopic["persistence"], string, string, string];
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
    if (!TOPIC_PATTERN.test(queue))
      throw new Error(`invalid topic name '${queue}': expected {persistent|non-persistent}://tenant/namespace/topic`);
    return queue;
  }
  const first = queue.indexOf(":");
  const second = first < 0 ? -1 : queue.indexOf(":", first + 1);
  if (second < 0) {
    throw new Error(
      `invalid topic name '${queue}': expected class:topicspace:topic (e.g. request:tg:joke) or a full topic name (non-persistent://tg/request/joke)`,
    );
  }
  const cls = queue.slice(0, first);
  const persistence = Object.hasOwn(QUEUE_CLASS_PERSISTENCE, cls) ? QUEUE_CLASS_PERSISTENCE[cls] : undefined;
  if (!persistence) {
    throw new Error(`invalid topic name '${queue}': class '${cls}' is not one of flow, request, response, notify`);
  }
  const topic = `${persistence}://${queue.slice(first + 1, second)}/${cls}/${queue.slice(second + 1)}`;
  if (!TOPIC_PATTERN.test(topic))
    throw new Error(`invalid topic name '${queue}': its topicspace and topic must be non-empty and have no '/'`);
  return topic;
}
