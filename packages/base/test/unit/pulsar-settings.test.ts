import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BaseEnv, EnvError, parseEnv, pulsarSettings } from "../../src/index.js";

const Env = BaseEnv.extend({ HTTP_PORT: BaseEnv.shape.HTTP_PORT.default(8700) });
const settings = (vars: Record<string, string>) => pulsarSettings(parseEnv(Env, vars));

describe("which transport a service uses", () => {
  it("is binary on the default broker when nothing is given", () => {
    expect(settings({})).toMatchObject({ kind: "binary", serviceUrl: "pulsar://127.0.0.1:6650" });
  });

  it("is binary when a service URL is given, with or without a web URL", () => {
    expect(settings({ PULSAR_SERVICE_URL: "pulsar+ssl://pulsar:6651" })).toMatchObject({
      kind: "binary",
      serviceUrl: "pulsar+ssl://pulsar:6651",
    });
    expect(settings({ PULSAR_SERVICE_URL: "pulsar://p:6650", PULSAR_WEB_URL: "http://p:8080" }).kind).toBe("binary");
  });

  it("is the WebSocket API when only a web URL is given, or when asked for", () => {
    expect(settings({ PULSAR_WEB_URL: "http://p:8080" })).toMatchObject({ kind: "websocket", webServiceUrl: "http://p:8080" });
    expect(settings({ PULSAR_SERVICE_URL: "pulsar://p:6650", PULSAR_TRANSPORT: "websocket" }).kind).toBe("websocket");
  });

  it("names bad values: a service URL of another scheme, an unknown transport", () => {
    expect(() => settings({ PULSAR_SERVICE_URL: "http://p:6650", PULSAR_TRANSPORT: "grpc" })).toThrow(
      /PULSAR_SERVICE_URL="http:\/\/p:6650": must be pulsar:\/\/host:port[\s\S]*PULSAR_TRANSPORT="grpc": must be binary or websocket/,
    );
  });
});

describe("authentication and TLS settings", () => {
  const dir = mkdtempSync(join(tmpdir(), "pulsar-settings-"));

  it("reads a token file at each connection, so a rotated token is used without a restart", async () => {
    const file = join(dir, "token");
    writeFileSync(file, "first\n");
    const token = settings({ PULSAR_AUTH_TOKEN_FILE: file }).authToken as () => string;
    expect(token()).toBe("first");
    writeFileSync(file, "second");
    expect(token()).toBe("second");
    expect(settings({ PULSAR_AUTH_TOKEN: "inline" }).authToken).toBe("inline");
  });

  it("loads the CA file and refuses a missing one, both token forms, or a certificate without its key", () => {
    const ca = join(dir, "ca.pem");
    writeFileSync(ca, "-----BEGIN CERTIFICATE-----\n");
    expect(settings({ PULSAR_TLS_CA_FILE: ca }).tls?.ca?.toString()).toContain("BEGIN CERTIFICATE");
    let error: unknown;
    try {
      settings({
        PULSAR_TLS_CA_FILE: join(dir, "missing.pem"),
        PULSAR_AUTH_TOKEN: "a",
        PULSAR_AUTH_TOKEN_FILE: ca,
        PULSAR_TLS_CERT_FILE: ca,
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(EnvError);
    const problems = (error as EnvError).problems.join("\n");
    expect(problems).toMatch(/PULSAR_TLS_CA_FILE=".*missing.pem": cannot read it \(ENOENT\)/);
    expect(problems).toMatch(/either PULSAR_AUTH_TOKEN or PULSAR_AUTH_TOKEN_FILE/);
    expect(problems).toMatch(/needs both PULSAR_TLS_CERT_FILE and PULSAR_TLS_KEY_FILE/);
  });

  it("turns certificate checks off only when told, with a clear message for a bad value", () => {
    expect(settings({}).tls?.rejectUnauthorized).toBe(true);
    expect(settings({ PULSAR_TLS_VERIFY: "false" }).tls?.rejectUnauthorized).toBe(false);
    expect(() => settings({ PULSAR_TLS_VERIFY: "maybe" })).toThrow(/PULSAR_TLS_VERIFY="maybe": must be true or false/);
  });
});
