import { describe, expect, it } from "vitest";
import { driverConnection } from "../../src/database-tls.js";

// How libpq's TLS parameters in DATABASE_URL become the driver's `ssl` option (the connections themselves
// are tried against a TLS-only PostgreSQL in test/integration/database-tls.test.ts).
const base = "postgres://tm:pw@db.example.com:5432/toolmesh";

describe("driverConnection", () => {
  it("defaults to libpq's prefer, and maps disable, allow and require", () => {
    expect(driverConnection(base)).toEqual({ url: base, ssl: "prefer" });
    expect(driverConnection(`${base}?sslmode=disable`).ssl).toBe(false);
    expect(driverConnection(`${base}?sslmode=allow`).ssl).toBe("prefer");
    expect(driverConnection(`${base}?sslmode=require`).ssl).toBe("require");
  });

  it("verifies with Node's CAs for verify-full, checking the host name; verify-ca skips the name", () => {
    const full = driverConnection(`${base}?sslmode=verify-full`).ssl;
    expect(full).toEqual({ rejectUnauthorized: true });
    const ca = driverConnection(`${base}?sslmode=verify-ca`).ssl as { rejectUnauthorized: boolean; checkServerIdentity: () => unknown };
    expect(ca.rejectUnauthorized).toBe(true);
    expect(ca.checkServerIdentity()).toBeUndefined();
    expect(driverConnection(`${base}?sslrootcert=system`).ssl).toEqual({ rejectUnauthorized: true });
  });

  it("takes the TLS parameters out of the URL it hands on and keeps the others", () => {
    const { url } = driverConnection(`${base}?application_name=toolmesh&sslmode=require&sslnegotiation=direct`);
    expect(url).toBe(`${base}?application_name=toolmesh&sslnegotiation=direct`);
  });
});
