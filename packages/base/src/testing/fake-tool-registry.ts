import {
  type CatalogRevision,
  ErrorType,
  ServiceError,
  ServiceName,
  ToolRegistryRequest,
  type ToolRegistryResponse,
} from "@toolmesh/schema";
import { BaseEnv } from "../env.js";
import type { ServiceRuntime } from "../runtime.js";
import type { MemoryBus } from "./memory-bus.js";

type Reply = Partial<ToolRegistryResponse>;

/**
 * A stand-in for the tool registry on a MemoryBus, for the unit tier of its readers (agent, mcp-server): it
 * serves the revisions it is given (`current` = the newest, `get-revision` by number or hash) and pushes each
 * one published later on notify/tool-registry. The registry itself is tested in services/tool-registry.
 */
export class FakeToolRegistry {
  private readonly revisions: CatalogRevision[];

  private constructor(
    private readonly runtime: ServiceRuntime,
    revisions: CatalogRevision[],
  ) {
    this.revisions = [...revisions];
  }

  static async start(bus: MemoryBus, revisions: CatalogRevision[]): Promise<FakeToolRegistry> {
    const fake = new FakeToolRegistry(bus.runtime("fake-tool-registry", BaseEnv.parse({ HTTP_PORT: "0" })), revisions);
    await fake.runtime.serve({
      ...fake.runtime.topics.pair(ServiceName.toolRegistry),
      subscription: "fake-tool-registry-request",
      requestSchema: ToolRegistryRequest,
      errorReply: (error): Reply => ({ error }),
      handler: async (request) => fake.answer(request),
    });
    return fake;
  }

  /** Adds a newer revision without pushing it (as if its push was lost). */
  add(revision: CatalogRevision): void {
    this.revisions.push(revision);
  }

  /** Pushes a revision's summary without adding the revision (as if the push came before it was readable). */
  async pushOnly(revision: CatalogRevision): Promise<void> {
    const { tools: _tools, ...summary } = revision;
    await this.runtime.pulsar.sendJson(this.runtime.topics.toolRegistryNotify, summary);
  }

  /** Adds a newer revision and pushes its summary, as the registry does after a refresh. */
  async publish(revision: CatalogRevision): Promise<void> {
    this.add(revision);
    await this.pushOnly(revision);
  }

  private answer(request: ToolRegistryRequest): Reply {
    if (request.operation === "current") {
      const newest = this.revisions.at(-1);
      if (!newest) throw new ServiceError("not-found", "the catalog has no revision yet: refresh it first");
      return { revision: newest };
    }
    if (request.operation === "get-revision") {
      const found = this.revisions.find((r) => r.revision_number === request.revision_number || r.content_hash === request.content_hash);
      if (!found) throw new ServiceError("not-found", `no catalog revision ${request.revision_number ?? request.content_hash}`);
      return { revision: found };
    }
    throw new ServiceError(ErrorType.badOperation, `the fake tool registry has no '${request.operation}'`);
  }
}
