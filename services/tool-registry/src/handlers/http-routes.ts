import { timingSafeEqual } from "node:crypto";
import { z } from "zod";
import type { FastifyInstance } from "@toolmesh/base";
import { ErrorType, ServiceError } from "@toolmesh/schema";
import type { RegistryQueries } from "../queries.js";
import type { CatalogRefresher } from "../refresh.js";

const error = (type: ErrorType, message: string) => new ServiceError(type, message).body;

function tokenMatches(header: string | undefined, token: string | undefined): boolean {
  if (!token || !header?.startsWith("Bearer ")) return false;
  const given = Buffer.from(header.slice("Bearer ".length));
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const RevisionRef = z.union([
  z.coerce
    .number()
    .int()
    .positive()
    .transform((n) => ({ revision_number: n })),
  z
    .string()
    .regex(/^[0-9a-f]{64}$/, "a revision number or a 64-character sha256 hash")
    .transform((h) => ({ content_hash: h })),
]);
const DiffQuery = z.object({ from: z.coerce.number().int().positive().optional(), to: z.coerce.number().int().positive().optional() });
const ListQuery = z.object({ limit: z.coerce.number().int().positive().max(1000).default(100) });

/** The admin refresh (bearer token) and the catalog read API; a query's ServiceError answers with its status. */
export function registerRegistryRoutes(
  app: FastifyInstance,
  queries: RegistryQueries,
  refresher: CatalogRefresher,
  adminToken: string | undefined,
): void {
  app.post("/admin/tools/refresh", async (request, reply) => {
    if (!tokenMatches(request.headers.authorization, adminToken)) {
      const message = adminToken
        ? "a valid 'Authorization: Bearer <admin token>' is required"
        : "the admin API is off: set REGISTRY_ADMIN_TOKEN";
      return reply.status(401).send(error(ErrorType.unauthorized, message));
    }
    const result = await refresher.refresh("admin http");
    return {
      revision_number: result.revision.revision_number,
      content_hash: result.revision.content_hash,
      created: result.created,
      tool_count: result.revision.tool_count,
      sources: result.sources,
    };
  });

  app.get("/tools/catalog", async () => queries.current());
  app.get("/tools/catalog/revisions", async (request, reply) => {
    const query = ListQuery.safeParse(request.query);
    if (!query.success) return reply.status(400).send(error(ErrorType.badRequest, "limit must be 1-1000"));
    return queries.list(query.data.limit);
  });
  app.get<{ Params: { ref: string } }>("/tools/catalog/revisions/:ref", async (request, reply) => {
    const ref = RevisionRef.safeParse(request.params.ref);
    if (!ref.success)
      return reply.status(400).send(error(ErrorType.badRequest, `'${request.params.ref}' is not a revision number or hash`));
    return queries.revision(ref.data);
  });
  app.get("/tools/catalog/diff", async (request, reply) => {
    const query = DiffQuery.safeParse(request.query);
    if (!query.success) return reply.status(400).send(error(ErrorType.badRequest, "from and to must be revision numbers"));
    return queries.diff(query.data.from, query.data.to);
  });
  app.get("/tools/sources", async () => queries.sources());
}
