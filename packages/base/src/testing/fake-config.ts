import {
  type ConfigPush,
  ConfigRequest,
  type ConfigResponse,
  ErrorType,
  ServiceError,
  ServiceName,
  WorkspaceRegistry,
} from "@toolmesh/schema";
import { BaseEnv } from "../env.js";
import type { ServiceRuntime } from "../runtime.js";
import type { MemoryBus } from "./memory-bus.js";

type Reply = Partial<ConfigResponse>;

/**
 * A stand-in for the config service on a MemoryBus, for the unit tier of services that read config: items
 * kept in memory per workspace, TrustGraph's one-workspace operations (get, list, getvalues, config, put,
 * delete; no validation, no size limits) on the system queue and on the queue of each workspace given
 * (registered in `__workspaces__`), and a push on notify/config after each change. The config service
 * itself is tested on its own queues (services/config).
 */
export class FakeConfig {
  /** Every request it was sent, parsed, in arrival order. */
  readonly requests: ConfigRequest[] = [];
  private current = 1;
  private readonly workspaces = new Map<string, Map<string, Map<string, string>>>();

  private constructor(private readonly runtime: ServiceRuntime) {}

  static async start(bus: MemoryBus, workspaces: string[] = ["default"]): Promise<FakeConfig> {
    const fake = new FakeConfig(bus.runtime("fake-config", BaseEnv.parse({ HTTP_PORT: "0" })));
    const common = {
      subscription: "fake-config-request",
      requestSchema: ConfigRequest,
      errorReply: (error: Reply["error"]): Reply => ({ version: fake.current, error }),
    };
    await fake.runtime.serve({ ...common, ...fake.runtime.topics.pair(ServiceName.config), handler: (request) => fake.answer(request) });
    for (const workspace of workspaces) {
      fake.items(WorkspaceRegistry.workspace, WorkspaceRegistry.type).set(workspace, WorkspaceRegistry.value);
      await fake.runtime.serve({
        ...common,
        ...fake.runtime.topics.workspaceConfig(workspace),
        handler: (request) => fake.answer({ ...request, workspace }),
      });
    }
    return fake;
  }

  get version(): number {
    return this.current;
  }

  /** Stores `value` (JSON-encoded unless a string) as one change and pushes it; returns the new version. */
  set(type: string, key: string, value: unknown, workspace = "default"): Promise<number> {
    return this.change([{ type, key, value: typeof value === "string" ? value : JSON.stringify(value) }], workspace);
  }

  /** Deletes one item as one change and pushes it; returns the new version. */
  delete(type: string, key: string, workspace = "default"): Promise<number> {
    return this.change([{ type, key, value: null }], workspace);
  }

  private items(workspace: string, type: string): Map<string, string> {
    let types = this.workspaces.get(workspace);
    if (!types) this.workspaces.set(workspace, (types = new Map()));
    let items = types.get(type);
    if (!items) types.set(type, (items = new Map()));
    return items;
  }

  private async change(values: Array<{ type: string; key: string; value: string | null }>, workspace: string): Promise<number> {
    for (const { type, key, value } of values) {
      if (value === null) this.items(workspace, type).delete(key);
      else this.items(workspace, type).set(key, value);
    }
    this.current += 1;
    const changes = Object.fromEntries([...new Set(values.map((v) => v.type))].map((type) => [type, [workspace]]));
    const push: ConfigPush = { version: this.current, changes, workspace_changes: null };
    await this.runtime.pulsar.sendJson(this.runtime.topics.configNotify, push);
    return this.current;
  }

  private async answer(request: ConfigRequest): Promise<Reply> {
    this.requests.push(request);
    const { workspace } = request;
    const version = this.current;
    switch (request.operation) {
      case "getvalues": {
        const items = [...this.items(workspace, request.type ?? "")].map(([key, value]) => ({ type: request.type!, key, value }));
        return { version, values: items };
      }
      case "get":
        return {
          version,
          values: request.keys.map(({ type, key }) => ({ type, key, value: this.items(workspace, type).get(key) ?? null })),
        };
      case "list":
        return { version, directory: [...this.items(workspace, request.type ?? "").keys()].sort() };
      case "config": {
        const types = this.workspaces.get(workspace) ?? new Map<string, Map<string, string>>();
        return { version, config: Object.fromEntries([...types].map(([type, items]) => [type, Object.fromEntries(items)])) };
      }
      case "put":
        return { version: await this.change(request.values, workspace) };
      case "delete":
        return {
          version: await this.change(
            request.keys.map((k) => ({ ...k, value: null })),
            workspace,
          ),
        };
      default:
        throw new ServiceError(ErrorType.badOperation, `the fake config service has no '${request.operation}'`);
    }
  }
}
