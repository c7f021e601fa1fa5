import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TENANT_NAME_RULE } from "@toolmesh/schema";
import { BaseEnv, DatabaseEnv, EnvError, parseEnv, poolSettings } from "../../src/index.js";

const ServiceEnv = BaseEnv.extend({ HTTP_PORT: BaseEnv.shape.HTTP_PORT.default(8700), DATA_DIR: z.string().default("./data") });

describe("parseEnv", () => {
  it("applies defaults and coerces numbers", () => {
    const env = parseEnv(ServiceEnv, { HTTP_PORT: "9000" });
    expect(env).toMatchObject({ HTTP_PORT: 9000, PULSAR_RECEIVER_QUEUE_SIZE: 10_000, LOG_LEVEL: "info", DATA_DIR: "./data" });
  });

  it("treats an empty value as unset", () => {
    expect(parseEnv(ServiceEnv, { HTTP_PORT: "" }).HTTP_PORT).toBe(8700);
  });

  it("names every bad variable and its value", () => {
    let error: unknown;
    try {
      parseEnv(ServiceEnv, { HTTP_PORT: "eighty", LOG_LEVEL: "loud", PULSAR_WEB_URL: "not a url" });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(EnvError);
    const message = (error as Error).message;
    expect(message).toMatch(/HTTP_PORT="eighty": /);
    expect(message).toMatch(/LOG_LEVEL="loud": /);
    expect(message).toMatch(/PULSAR_WEB_URL="not a url": /);
  });

  it("takes a postgres DATABASE_URL (optional, pool knobs defaulted), refuses another scheme, and never prints its password", () => {
    const StoreEnv = ServiceEnv.extend(DatabaseEnv.shape);
    const unset = parseEnv(StoreEnv, {});
    expect(unset.DATABASE_URL).toBeUndefined();
    expect(unset).toMatchObject({ DATABASE_POOL_MAX: 10, DATABASE_CONNECT_TIMEOUT_S: 10 });
    expect(parseEnv(StoreEnv, { DATABASE_URL: "postgresql://tm:pw@db:5432/toolmesh", DATABASE_POOL_MAX: "4" })).toMatchObject({
      DATABASE_URL: "postgresql://tm:pw@db:5432/toolmesh",
      DATABASE_POOL_MAX: 4,
    });
    let message = "";
    try {
      parseEnv(StoreEnv, { DATABASE_URL: "mysql://tm:hunter2@db/toolmesh", DATABASE_POOL_MAX: "0" });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('DATABASE_URL="mysql://tm:***@db/toolmesh": must be a postgres://');
    expect(message).toMatch(/DATABASE_POOL_MAX="0": /);
    expect(message).not.toContain("hunter2");
  });

  it("refuses a DATABASE_URL without a host (the driver would quietly use localhost:5432)", () => {
    const StoreEnv = ServiceEnv.extend(DatabaseEnv.shape);
    expect(() => parseEnv(StoreEnv, { DATABASE_URL: "postgres:tm:pw@db:5432/toolmesh" })).toThrow(
      /^invalid environment:\n {2}DATABASE_URL="postgres:tm:pw@db:5432\/toolmesh": must be a postgres:\/\//,
    );
  });

  it("takes libpq's TLS parameters in DATABASE_URL and refuses the ones it cannot honour, naming them", () => {
    const StoreEnv = ServiceEnv.extend(DatabaseEnv.shape);
    const url = "postgres://tm:hunter2@db.example.com:5432/toolmesh";
    for (const params of [
      "sslmode=verify-full&sslrootcert=/etc/ssl/rds.pem",
      "sslmode=require",
      "sslrootcert=system",
      "sslcert=/c.pem&sslkey=/k.pem",
    ])
      expect(parseEnv(StoreEnv, { DATABASE_URL: `${url}?${params}` }).DATABASE_URL).toBe(`${url}?${params}`);
    const refused = (params: string) => () => parseEnv(StoreEnv, { DATABASE_URL: `${url}?${params}` });
    expect(refused("sslmode=verify_full")).toThrow(
      /DATABASE_URL=".*\?sslmode=verify_full": sslmode=verify_full is not one of disable, allow, prefer, require, verify-ca, verify-full$/,
    );
    expect(refused("sslmode=require&sslcrl=/crl.pem")).toThrow(
      /sslcrl is not supported \(TLS takes sslmode, sslrootcert, sslcert and sslkey\)$/,
    );
    expect(refused("sslcert=/c.pem")).toThrow(/sslcert and sslkey go together/);
    expect(refused("sslmode=bogus")).not.toThrow(/hunter2/);
  });

  it("takes DATABASE_TRANSACTION_POOLING (off unless true), and refuses the driver's own settings in DATABASE_URL, naming the variable", () => {
    const StoreEnv = ServiceEnv.extend(DatabaseEnv.shape);
    const url = "postgres://tm:pw@pgbouncer:6432/toolmesh";
    expect(parseEnv(StoreEnv, { DATABASE_URL: url }).DATABASE_TRANSACTION_POOLING).toBe(false);
    expect(poolSettings(parseEnv(StoreEnv, { DATABASE_URL: url, DATABASE_TRANSACTION_POOLING: "true" }))).toEqual({
      max: 10,
      connectTimeoutS: 10,
      transactionPooling: true,
    });
    expect(() => parseEnv(StoreEnv, { DATABASE_TRANSACTION_POOLING: "maybe" })).toThrow(
      /DATABASE_TRANSACTION_POOLING="maybe": must be true or false/,
    );
    const refused = (params: string) => () => parseEnv(StoreEnv, { DATABASE_URL: `${url}?${params}` });
    expect(refused("prepare=false")).toThrow(/prepare= in the URL is not read: set DATABASE_TRANSACTION_POOLING instead$/);
    expect(refused("sslmode=require&max=50")).toThrow(/max= in the URL is not read: set DATABASE_POOL_MAX instead$/);
    expect(refused("connect_timeout=3")).toThrow(/connect_timeout= in the URL is not read: set DATABASE_CONNECT_TIMEOUT_S instead$/);
  });

  it("takes LOG_FORMAT json or nothing, and refuses a typo", () => {
    expect(parseEnv(ServiceEnv, { LOG_FORMAT: "json" }).LOG_FORMAT).toBe("json");
    expect(parseEnv(ServiceEnv, {}).LOG_FORMAT).toBeUndefined();
    expect(() => parseEnv(ServiceEnv, { LOG_FORMAT: "jsno" })).toThrow(/LOG_FORMAT="jsno": must be json/);
  });

  it("refuses a port out of range", () => {
    expect(() => parseEnv(ServiceEnv, { HTTP_PORT: "70000" })).toThrow(/HTTP_PORT="70000"/);
  });

  it("defaults the size limits to toolmesh's broker settings, the backlog to 1000, and refuses nonsense", () => {
    expect(parseEnv(ServiceEnv, {})).toMatchObject({
      PULSAR_MAX_MESSAGE_SIZE: 6_291_456,
      PULSAR_WS_MAX_FRAME_SIZE: 10_485_760,
      REQUEST_BACKLOG: 1_000,
      BROKER_DROPS_POLL_MS: 15_000,
    });
    expect(parseEnv(ServiceEnv, { BROKER_DROPS_POLL_MS: "0" }).BROKER_DROPS_POLL_MS).toBe(0);
    expect(() => parseEnv(ServiceEnv, { REQUEST_BACKLOG: "0" })).toThrow(/REQUEST_BACKLOG="0"/);
    expect(() => parseEnv(ServiceEnv, { PULSAR_MAX_MESSAGE_SIZE: "5MB" })).toThrow(/PULSAR_MAX_MESSAGE_SIZE="5MB"/);
  });

  it("takes TOOLMESH_TENANT by the schema's tenant rule (default tg) and says the rule when it is broken", () => {
    expect(parseEnv(ServiceEnv, {}).TOOLMESH_TENANT).toBe("tg");
    expect(parseEnv(ServiceEnv, { TOOLMESH_TENANT: "staging_2" }).TOOLMESH_TENANT).toBe("staging_2");
    for (const bad of ["a/b", "x".repeat(65), "tg.eu"]) {
      expect(() => parseEnv(ServiceEnv, { TOOLMESH_TENANT: bad })).toThrow(
        `TOOLMESH_TENANT=${JSON.stringify(bad)}: a tenant name: ${TENANT_NAME_RULE}`,
      );
    }
  });
});
