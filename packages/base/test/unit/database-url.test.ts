import { describe, expect, it } from "vitest";
import { DatabaseEnv, databaseLocation } from "../../src/index.js";
import { driverConnection } from "../../src/database-tls.js";
import { splitDatabaseUrl } from "../../src/database-url.js";

// libpq's multi-host DATABASE_URL (a primary and its standbys; target_session_attrs picks the writable one),
// which WHATWG's URL parser refuses: read, checked, logged and handed to the driver with every host kept.
const multi = "postgres://tm:pw@db-1.internal:5432,db-2.internal:5433/toolmesh?target_session_attrs=read-write&sslmode=require";

describe("DATABASE_URL with several hosts", () => {
  it("is taken apart into its hosts and a URL on the first", () => {
    const parts = splitDatabaseUrl(multi)!;
    expect(parts.hosts).toEqual(["db-1.internal:5432", "db-2.internal:5433"]);
    expect(parts.first.pathname).toBe("/toolmesh");
    expect(parts.first.password).toBe("pw");
    expect(parts.first.searchParams.get("target_session_attrs")).toBe("read-write");
  });

  it("is taken by DatabaseEnv, and a list with a host that is not one is refused", () => {
    expect(DatabaseEnv.parse({ DATABASE_URL: multi }).DATABASE_URL).toBe(multi);
    expect(DatabaseEnv.parse({ DATABASE_URL: "postgresql://tm:pw@a,b,c/toolmesh" }).DATABASE_URL).toBe("postgresql://tm:pw@a,b,c/toolmesh");
    for (const bad of [
      "postgres://tm:pw@db-1:5432,:5433/toolmesh",
      "postgres://tm:pw@db-1,/toolmesh",
      "postgres://tm:pw@db-1:99999/toolmesh",
    ])
      expect(DatabaseEnv.safeParse({ DATABASE_URL: bad }).success, bad).toBe(false);
    // The TLS and driver settings are read from the query as with one host.
    const twoHosts = "postgres://tm:pw@db-1:5432,db-2:5433/toolmesh";
    expect(DatabaseEnv.safeParse({ DATABASE_URL: `${twoHosts}?sslmode=verify_full` }).success).toBe(false);
    expect(DatabaseEnv.safeParse({ DATABASE_URL: `${twoHosts}?prepare=false` }).success).toBe(false);
  });

  it("is logged with every host and without its password", () => {
    expect(databaseLocation(multi)).toBe("postgres://db-1.internal:5432,db-2.internal:5433/toolmesh");
    expect(databaseLocation("postgres://tm:pw@db:5432/toolmesh")).toBe("postgres://db:5432/toolmesh");
  });

  it("reaches the driver with every host, its TLS parameters turned into the ssl option, read-write asked as primary", () => {
    // The driver reads read-write from default_transaction_read_only alone, which a PostgreSQL 14+ standby reports off.
    expect(driverConnection(multi)).toEqual({
      url: "postgres://tm:pw@db-1.internal:5432,db-2.internal:5433/toolmesh?target_session_attrs=primary",
      ssl: "require",
    });
    expect(driverConnection("postgres://tm:pw@a,b/toolmesh?target_session_attrs=any&sslmode=disable").url).toBe(
      "postgres://tm:pw@a,b/toolmesh?target_session_attrs=any",
    );
  });
});
