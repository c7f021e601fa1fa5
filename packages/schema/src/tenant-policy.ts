import { z } from "zod";
import { TENANT_NAME_RULE, isTenantName } from "./tenant-name.js";
import { parseTopic } from "./topics.js";

/**
 * TOOLMESH_ALLOWED_TENANTS: a comma-separated list of further Pulsar tenants whose topics descriptors and
 * catalog bindings may name (empty = only the system's own). `*` is refused on purpose: name each tenant.
 */
const tenantList = (value: string) =>
  value
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
export const AllowedTenants = z
  .string()
  .default("")
  .refine((value) => tenantList(value).every(isTenantName), `expected tenant names (${TENANT_NAME_RULE}) separated by commas`)
  .transform(tenantList);

/**
 * Which Pulsar tenants a tool's queues may be in. A descriptor (or a catalog binding) is written by whoever
 * may put config or publish a manifest; without this check it could point the gateway or the agent at
 * another system's services on the same broker. The system's own tenant is always allowed.
 */
export class TenantPolicy {
  readonly tenants: ReadonlySet<string>;

  constructor(
    /** The system's own tenant (TopicLayout.tenant). */
    readonly own: string,
    extra: readonly string[] = [],
  ) {
    this.tenants = new Set([own, ...extra]);
  }

  /** Why `topic` may not be used, or null when it may. A malformed name is refused too. */
  problem(topic: string): string | null {
    let tenant: string;
    try {
      tenant = parseTopic(topic).tenant;
    } catch (err) {
      return (err as Error).message;
    }
    if (this.tenants.has(tenant)) return null;
    const allowed = [...this.tenants].map((t) => `'${t}'`).join(", ");
    return `queue ${topic} is in tenant '${tenant}', outside the tenants this system may use (${allowed}); an operator can allow more with TOOLMESH_ALLOWED_TENANTS`;
  }

  /** The first problem of any of `topics`, or null. */
  firstProblem(topics: readonly string[]): string | null {
    for (const topic of topics) {
      const problem = this.problem(topic);
      if (problem) return problem;
    }
    return null;
  }
}
