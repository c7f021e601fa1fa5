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

describe("OAuth2 settings", () => {
  const dir = mkdtempSync(join(tmpdir(), "pulsar-oauth2-"));
  const keyFile = join(dir, "credentials.json");
  writeFileSync(keyFile, JSON.stringify({ type: "client_credentials", client_id: "svc", client_secret: "s3cret" }));
  const problemsOf = (vars: Record<string, string>): string => {
    try {
      settings(vars);
    } catch (err) {
      if (err instanceof EnvError) return err.problems.join("\n");
      throw err;
    }
    throw new Error("no EnvError");
  };

  it("gives the transports a token function when the issuer and key file are set (no request until one is asked for)", () => {
    const authToken = settings({ PULSAR_OAUTH2_ISSUER_URL: "https://auth.example.com/", PULSAR_OAUTH2_PRIVATE_KEY: keyFile }).authToken;
    expect(typeof authToken).toBe("function");
  });

  it("refuses half a configuration, OAuth2 beside a token, and audience or scope alone", () => {
    expect(problemsOf({ PULSAR_OAUTH2_ISSUER_URL: "https://auth.example.com/" })).toMatch(
      /needs both PULSAR_OAUTH2_ISSUER_URL and PULSAR_OAUTH2_PRIVATE_KEY/,
    );
    expect(problemsOf({ PULSAR_OAUTH2_PRIVATE_KEY: keyFile })).toMatch(/needs both PULSAR_OAUTH2_ISSUER_URL and PULSAR_OAUTH2_PRIVATE_KEY/);
    expect(
      problemsOf({ PULSAR_OAUTH2_ISSUER_URL: "https://auth.example.com/", PULSAR_OAUTH2_PRIVATE_KEY: keyFile, PULSAR_AUTH_TOKEN: "t" }),
    ).toMatch(/either a token \(PULSAR_AUTH_TOKEN or PULSAR_AUTH_TOKEN_FILE\) or OAuth2, not both/);
    expect(problemsOf({ PULSAR_OAUTH2_AUDIENCE: "urn:pulsar" })).toMatch(
      /AUDIENCE and PULSAR_OAUTH2_SCOPE need the issuer and the key file/,
    );
    expect(problemsOf({ PULSAR_OAUTH2_ISSUER_URL: "not a url", PULSAR_OAUTH2_PRIVATE_KEY: keyFile })).toMatch(
      /PULSAR_OAUTH2_ISSUER_URL="not a url": must be the issuer's URL/,
    );
  });

  it("reads the key file at start: a missing, non-JSON or incomplete one stops the service, its secret never shown", () => {
    expect(problemsOf({ PULSAR_OAUTH2_ISSUER_URL: "https://a.example/", PULSAR_OAUTH2_PRIVATE_KEY: join(dir, "nope.json") })).toMatch(
      /PULSAR_OAUTH2_PRIVATE_KEY: cannot read the OAuth2 key file ".*nope.json" \(ENOENT\)/,
    );
    const notJson = join(dir, "not.json");
    writeFileSync(notJson, "client_secret=hunter2");
    const bad = problemsOf({ PULSAR_OAUTH2_ISSUER_URL: "https://a.example/", PULSAR_OAUTH2_PRIVATE_KEY: notJson });
    expect(bad).toMatch(/is not JSON/);
    expect(bad).not.toContain("hunter2");
    const inline = `data:application/json;base64,${Buffer.from(JSON.stringify({ client_id: "svc", client_secret: "" })).toString("base64")}`;
    expect(problemsOf({ PULSAR_OAUTH2_ISSUER_URL: "https://a.example/", PULSAR_OAUTH2_PRIVATE_KEY: inline })).toMatch(
      /the OAuth2 key file \(data: URL\): client_secret must not be empty/,
    );
  });
});
