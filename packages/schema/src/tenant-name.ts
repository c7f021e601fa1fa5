import { z } from "zod";

// The one definition of a Pulsar tenant name as toolmesh accepts one (TOOLMESH_TENANT, the entries of
// TOOLMESH_ALLOWED_TENANTS, TopicLayout's tenant): what fits a topic's `<tenant>` part and a queue id's.
const TENANT_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** The rule in words, for error messages. */
export const TENANT_NAME_RULE = "1-64 of A-Z, a-z, 0-9, '_', '-'";

export function isTenantName(value: string): boolean {
  return TENANT_NAME.test(value);
}

/** A tenant name, as a zod schema (environment variables). */
export const TenantName = z.string().regex(TENANT_NAME, `a tenant name: ${TENANT_NAME_RULE}`);
