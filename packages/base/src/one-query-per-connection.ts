import type postgres from "postgres";
import { ConcurrencyLimiter } from "@toolmesh/pulsar";

/**
 * The pool `sql` with at most `connections` of its queries and transactions under way at once, the rest
 * waiting their turn here, so the driver always finds a free connection and never sends a query behind
 * another on one connection (its pipelining). Behind a transaction pooler that matters: PgBouncer before
 * 1.21 hands a server connection back to its pool at the first query's ReadyForQuery, even when a query
 * with parameters was sent behind it (the driver describes those first, ending with Flush rather than
 * Sync, which PgBouncer does not count); the second query's answers then go to whichever client gets that
 * server connection next, and the first client waits forever.
 *
 * Covered: queries written as tagged templates (`sql\`...\``), `sql.unsafe()` and `sql.begin()` (inside a
 * transaction the driver already runs one query at a time). Everything else (`end`, helpers such as
 * `sql(rows, ...columns)`, fragments) is the pool's own. A query here runs when it is awaited.
 */
export function oneQueryPerConnection(sql: postgres.Sql, connections: number): postgres.Sql {
  const turns = new ConcurrencyLimiter(connections);
  const isTemplate = (first: unknown) => Array.isArray(first) && "raw" in first;
  return new Proxy(sql, {
    apply(target, self, args: unknown[]) {
      const call = () => Reflect.apply(target, self, args) as Promise<unknown>;
      return isTemplate(args[0]) ? turns.run(call) : call();
    },
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if ((property === "begin" || property === "unsafe") && typeof value === "function")
        return (...args: unknown[]) => turns.run(() => Reflect.apply(value, target, args) as Promise<unknown>);
      return value;
    },
  });
}
