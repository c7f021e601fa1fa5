import { ErrorType, ServiceError } from "@toolmesh/schema";
import { aroundMethods, whenSettled } from "./store-calls.js";

/**
 * Codes of a connection that could not be opened: the host refuses, does not resolve or does not answer
 * in time (Node's codes, and the driver's for its connect timeout). At start they mean DATABASE_URL or
 * its server is wrong (database.ts); later, that the database is away.
 */
export const CONNECT_FAILURES = ["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ETIMEDOUT", "CONNECT_TIMEOUT"] as const;

/**
 * Codes that say the database cannot be reached now, or went away under a query: the connect failures,
 * sockets cut, the `postgres` driver's connection errors, and PostgreSQL's SQLSTATEs for a server shutting
 * down, starting up or out of connections. Class 08 (connection exceptions) is matched by its prefix.
 */
const UNREACHABLE = new Set<string>([
  ...CONNECT_FAILURES,
  "ECONNRESET",
  "EPIPE",
  "ENETUNREACH",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "57P01",
  "57P02",
  "57P03",
  "53300",
]);

/** The code of an error that says the database cannot be reached, else undefined. */
export function unreachableDatabaseCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return undefined;
  return UNREACHABLE.has(code) || /^08[0-9A-Z]{3}$/.test(code) ? code : undefined;
}

/**
 * What a query failing with "prepared statement ... does not exist" (SQLSTATE 26000) most likely means: the
 * statement was prepared on another server connection, because a pooler between toolmesh and PostgreSQL
 * hands each transaction to whichever connection is free.
 */
export const MISSING_PREPARED_STATEMENT =
  "the database lost a prepared statement (SQLSTATE 26000): DATABASE_URL goes through a pooler in transaction mode " +
  "(PgBouncer pool_mode = transaction)? Set DATABASE_TRANSACTION_POOLING=true, or run PgBouncer 1.24 or later " +
  "(max_prepared_statements above 0)";

function isMissingPreparedStatement(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  return code === "26000" && typeof message === "string" && message.startsWith("prepared statement");
}

/**
 * A store whose database cannot be reached answers `unavailable` (HTTP 503: retry shortly) instead of an
 * internal error with the driver's text, and one behind a transaction-mode pooler that loses its prepared
 * statements names the setting that fixes it (MISSING_PREPARED_STATEMENT). Every method of `store` is
 * wrapped: an error that says the database is unreachable becomes ServiceError(unavailable) naming its code
 * (the original is its `cause`, which the service's log shows in full); any other error passes unchanged,
 * and so does whatever a callback handed to a method throws (e.g. the work run under a lock), which is not
 * the database's.
 */
export function reportUnreachableDatabase<T extends object>(store: T): T {
  const fromCallbacks = new WeakSet<object>();
  const translate = (err: unknown): unknown => {
    if (err instanceof ServiceError || (typeof err === "object" && err !== null && fromCallbacks.has(err))) return err;
    if (isMissingPreparedStatement(err)) return new ServiceError(ErrorType.internal, MISSING_PREPARED_STATEMENT, { cause: err });
    const code = unreachableDatabaseCode(err);
    return code === undefined
      ? err
      : new ServiceError(ErrorType.unavailable, `the database cannot be reached (${code}); retry shortly`, { cause: err });
  };
  const tag = (err: unknown) => {
    if (typeof err === "object" && err !== null) fromCallbacks.add(err);
    return err;
  };
  const marking =
    (callback: (...args: unknown[]) => unknown) =>
    (...args: unknown[]) =>
      whenSettled(() => callback(...args), { failed: tag });
  return aroundMethods(store, (_method, args, call) =>
    whenSettled(() => call(args.map((arg) => (typeof arg === "function" ? marking(arg as (...a: unknown[]) => unknown) : arg))), {
      failed: translate,
    }),
  );
}
