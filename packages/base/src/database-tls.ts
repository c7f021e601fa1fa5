import { readFileSync } from "node:fs";
import type { ConnectionOptions } from "node:tls";
import { joinDatabaseUrl, splitDatabaseUrl } from "./database-url.js";
import { StartupError } from "./startup-error.js";

/** libpq's `sslmode` values, weakest first (https://www.postgresql.org/docs/current/libpq-ssl.html). */
export const SSL_MODES = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"] as const;
export type SslMode = (typeof SSL_MODES)[number];

/** The libpq TLS parameters read here; the driver never sees them. */
const HANDLED = new Set(["sslmode", "sslrootcert", "sslcert", "sslkey"]);
/** `ssl*` parameters the driver understands itself. */
const DRIVER_OWN = new Set(["sslnegotiation"]);

/** What the `postgres` driver takes for TLS: off, its no-verification modes, or Node's TLS options. */
export type DriverSsl = false | "prefer" | "require" | ConnectionOptions;

/**
 * A problem with DATABASE_URL's TLS parameters that can be told without connecting (unknown sslmode, an
 * `ssl*` parameter not supported here, a key without its certificate), or undefined.
 */
export function sslParameterProblem(databaseUrl: string): string | undefined {
  const parts = splitDatabaseUrl(databaseUrl);
  if (!parts) return undefined; // the URL check itself says so
  const query = parts.first.searchParams;
  const mode = query.get("sslmode");
  if (mode !== null && !(SSL_MODES as readonly string[]).includes(mode)) return `sslmode=${mode} is not one of ${SSL_MODES.join(", ")}`;
  for (const name of query.keys())
    if (name.startsWith("ssl") && !HANDLED.has(name) && !DRIVER_OWN.has(name))
      return `${name} is not supported (TLS takes sslmode, sslrootcert, sslcert and sslkey)`;
  if (query.has("sslcert") !== query.has("sslkey")) return "sslcert and sslkey go together (a client certificate and its key)";
  return undefined;
}

/**
 * DATABASE_URL as the driver should get it: libpq's TLS parameters turned into its `ssl` option and taken
 * out of the URL (the driver would send them to the server as settings, which it refuses). As libpq does,
 * sslmode defaults to `prefer` (TLS when the server offers it), `require` with an `sslrootcert` verifies
 * the CA, and `sslrootcert=system` means Node's CAs and `verify-full`. `allow` is read as `prefer`.
 * Certificate files are read now; one that cannot be read is a StartupError naming it. Every host of a
 * multi-host URL is kept; `target_session_attrs=read-write` is handed over as `primary` (see below).
 */
export function driverConnection(databaseUrl: string): { url: string; ssl: DriverSsl } {
  const parts = splitDatabaseUrl(databaseUrl);
  if (!parts) throw new StartupError("DATABASE_URL is not a postgres://user:password@host:port/database URL");
  const query = new URLSearchParams(parts.first.searchParams);
  const rootCert = query.get("sslrootcert");
  const mode = (query.get("sslmode") ?? (rootCert === "system" ? "verify-full" : "prefer")) as SslMode;
  const read = (name: string): Buffer | undefined => {
    const path = query.get(name);
    if (path === null || (name === "sslrootcert" && path === "system")) return undefined;
    try {
      return readFileSync(path);
    } catch (err) {
      throw new StartupError(`cannot read ${name}=${path} named in DATABASE_URL: ${(err as Error).message}`);
    }
  };
  const ca = read("sslrootcert");
  const cert = read("sslcert");
  const key = read("sslkey");
  for (const name of HANDLED) query.delete(name);
  // libpq's read-write means "not a standby, and default_transaction_read_only off"; the driver checks the
  // latter alone, which a PostgreSQL 14+ standby reports as off, so it would settle on a standby. Every
  // server toolmesh writes to is a primary, so it is asked for one.
  if (query.get("target_session_attrs") === "read-write") query.set("target_session_attrs", "primary");

  const verifying = mode === "verify-ca" || mode === "verify-full" || (mode === "require" && rootCert !== null);
  let ssl: DriverSsl;
  if (mode === "disable") ssl = false;
  else if (!verifying && !cert) ssl = mode === "require" ? "require" : "prefer";
  else
    ssl = {
      rejectUnauthorized: verifying,
      ...(ca ? { ca } : {}),
      ...(cert && key ? { cert, key } : {}),
      // verify-ca (and require with a CA) checks who signed the certificate, not the name in it.
      ...(mode !== "verify-full" ? { checkServerIdentity: () => undefined } : {}),
    };
  return { url: joinDatabaseUrl(parts, query), ssl };
}

/** Node's codes for a certificate no CA this process trusts has signed. */
const UNTRUSTED_CERTIFICATE = [
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "CERT_UNTRUSTED",
];

/** TLS failures that say DATABASE_URL's TLS settings (or the server's certificate) are wrong: the server's certificate or its TLS support. */
export const TLS_SETTINGS_ERRORS = [
  ...UNTRUSTED_CERTIFICATE,
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "ECONNRESET",
];

/** What to change in DATABASE_URL for a TLS problem (libpq's parameters, as managed PostgreSQL documents them). */
export function tlsHint(code: string, message: string): string | undefined {
  if (UNTRUSTED_CERTIFICATE.includes(code))
    return "no CA this process trusts signed the server's certificate: name the CA with sslrootcert=/path/to/ca.pem in DATABASE_URL";
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID")
    return "the server's certificate does not name this host: connect by a name it lists, or use sslmode=verify-ca";
  if (code === "ECONNRESET") return "with sslmode=require or stricter, the server may not offer TLS";
  if (code === "28000" && message.includes("no encryption")) return "the server takes TLS connections only: drop sslmode=disable";
  return undefined;
}
