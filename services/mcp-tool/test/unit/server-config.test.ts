import { describe, expect, it } from "vitest";
import { McpDescriptor } from "@toolmesh/schema";
import { McpConfigError, redactUrl, remoteToolName, resolveServer, substituteEnv } from "../../src/server-config.js";

const descriptor = (fields: Record<string, unknown>) => McpDescriptor.parse({ url: "http://mcp.example:3000/mcp", ...fields });

describe("substituteEnv", () => {
  it("replaces every ${env:NAME}, leaving other text alone", () => {
    expect(substituteEnv("Bearer ${env:TOKEN}", { TOKEN: "abc" }, "h")).toBe("Bearer abc");
    expect(substituteEnv("${env:A}-${env:B}", { A: "1", B: "2" }, "h")).toBe("1-2");
    expect(substituteEnv("plain $HOME ${HOME} {env:X}", {}, "h")).toBe("plain $HOME ${HOME} {env:X}");
  });

  it("names a missing or empty variable instead of sending an empty value", () => {
    expect(() => substituteEnv("Bearer ${env:NOPE}", {}, "mcp tool 'x' header 'Authorization'")).toThrow(
      new McpConfigError(
        "mcp tool 'x' header 'Authorization' uses ${env:NOPE}, but environment variable NOPE is not set for the mcp-tool service",
      ),
    );
    expect(() => substituteEnv("${env:EMPTY}", { EMPTY: "" }, "h")).toThrow(/EMPTY is not set/);
  });

  it("refuses a reference that is not a variable name", () => {
    expect(() => substituteEnv("${env:not valid}", {}, "h")).toThrow("h: '${env:not valid}' does not name an environment variable");
  });
});

describe("resolveServer", () => {
  it("turns auth-token into a bearer header and substitutes env in headers and token", () => {
    const target = resolveServer(
      "calc",
      descriptor({ "auth-token": "${env:TOKEN}", headers: { "X-Tenant": "acme", "X-Key": "k-${env:KEY}" } }),
      { TOKEN: "t0k", KEY: "42" },
    );
    expect(target).toMatchObject({
      url: "http://mcp.example:3000/mcp",
      transport: "auto",
      label: "http://mcp.example:3000/mcp",
      headers: { authorization: "Bearer t0k", "x-tenant": "acme", "x-key": "k-42" },
    });
  });

  it("keys sessions by url, transport and resolved headers, and keeps secrets out of the key", () => {
    const a = resolveServer("a", descriptor({ "auth-token": "one" }), {});
    const b = resolveServer("b", descriptor({ headers: { Authorization: "Bearer one" } }), {});
    expect(a.key).toBe(b.key); // two entries, same server and credentials: one session
    expect(a.key).toMatch(/^[0-9a-f]{64}$/);
    expect(resolveServer("a", descriptor({ "auth-token": "two" }), {}).key).not.toBe(a.key);
    expect(resolveServer("a", descriptor({ "auth-token": "one", transport: "sse" }), {}).key).not.toBe(a.key);
    expect(resolveServer("a", { ...descriptor({ "auth-token": "one" }), url: "http://other:3000/mcp" }, {}).key).not.toBe(a.key);
    const rotated = descriptor({ "auth-token": "${env:T}" });
    expect(resolveServer("a", rotated, { T: "x" }).key).not.toBe(resolveServer("a", rotated, { T: "y" }).key);
  });

  it("refuses auth-token together with an Authorization header, and duplicate headers", () => {
    expect(() => resolveServer("x", descriptor({ "auth-token": "t", headers: { authorization: "Basic z" } }), {})).toThrow(
      "mcp tool 'x' sets both 'auth-token' and an Authorization header; keep one",
    );
    expect(() => resolveServer("x", descriptor({ headers: { "X-A": "1", "x-a": "2" } }), {})).toThrow("header 'x-a' is given twice");
  });

  it("resolves oauth2 client credentials (${env:NAME} in them), keys sessions by them, and refuses them beside a token", () => {
    const oauth2 = { "client-id": "svc", "client-secret": "${env:SECRET}", scope: "mcp:tools", issuer: "https://auth.example/" };
    const target = resolveServer("x", descriptor({ oauth2 }), { SECRET: "s3cret" });
    expect(target.oauth2).toEqual({ clientId: "svc", clientSecret: "s3cret", scope: "mcp:tools", issuer: "https://auth.example/" });
    expect(target.headers).toEqual({});
    expect(target.key).not.toContain("s3cret");
    expect(resolveServer("x", descriptor({ oauth2 }), { SECRET: "other" }).key).not.toBe(target.key);
    expect(resolveServer("x", descriptor({}), {}).key).not.toBe(target.key);
    expect(() => resolveServer("x", descriptor({ oauth2 }), {})).toThrow(
      /oauth2.client-secret uses \$\{env:SECRET\}, but environment variable SECRET is not set/,
    );
    expect(() => resolveServer("x", descriptor({ oauth2, "auth-token": "t" }), { SECRET: "s" })).toThrow(
      "mcp tool 'x' sets both 'oauth2' and a token ('auth-token' or an Authorization header); keep one",
    );
    expect(() => descriptor({ oauth2: { "client-id": "svc" } })).toThrow(/client-secret/);
    expect(() => descriptor({ oauth2: { ...oauth2, "client-sceret": "typo" } })).toThrow(/client-sceret/);
  });

  it("refuses a header value with a line break without printing the value", () => {
    const attempt = () => resolveServer("x", descriptor({ headers: { "X-Key": "${env:K}" } }), { K: "secret\r\nInjected: 1" });
    expect(attempt).toThrow(McpConfigError);
    expect(attempt).toThrow(/header 'X-Key' is not a valid HTTP header/);
    expect(attempt).not.toThrow(/secret/);
  });

  it("refuses credentials inside the url", () => {
    expect(() => resolveServer("x", descriptor({ url: "http://user:pw@mcp.example/mcp" }), {})).toThrow(/must not embed credentials/);
  });

  it("labels servers without query or credentials", () => {
    expect(redactUrl("https://mcp.example/v1/mcp?api_key=secret#x")).toBe("https://mcp.example/v1/mcp");
    expect(resolveServer("x", descriptor({ url: "https://mcp.example/mcp?key=s" }), {}).label).toBe("https://mcp.example/mcp");
  });

  it("calls the remote-name, or else the entry's own key", () => {
    expect(remoteToolName("calculator", descriptor({ "remote-name": "add" }))).toBe("add");
    expect(remoteToolName("calculator", descriptor({}))).toBe("calculator");
  });
});
