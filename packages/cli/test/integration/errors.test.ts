import { freePort } from "@toolmesh/test-support";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GatewayDouble, gatewayError, ok } from "../support/gateway-double.js";
import { type TgResult, oneErrorLine, tg } from "../support/run-tg.js";

// Every failure class: exit 1, nothing on stdout, one `tg: ...` line on stderr and no stack trace.
function expectFailure(result: TgResult): string {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe("");
  expect(result.stderr).not.toMatch(/\n\s+at /);
  return oneErrorLine(result);
}

let gateway: GatewayDouble;
let secured: GatewayDouble;

beforeAll(async () => {
  gateway = await GatewayDouble.start();
  secured = await GatewayDouble.start({ token: "s3cret" });
});
afterAll(async () => {
  await gateway.close();
  await secured.close();
});
beforeEach(() => {
  gateway.requests.length = 0;
});

const invokeMcp = ["invoke-mcp-tool", "-n", "calculator"];

describe("gateway-level errors", () => {
  it("says the gateway cannot be reached when nothing listens", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const line = expectFailure(await tg(["list-config", "-t", "tool"], { TG_URL: url }));
    expect(line).toMatch(new RegExp(`^tg: cannot reach the gateway at ${url}: .*ECONNREFUSED`));
  });

  it("reports 401 and hints at TG_TOKEN when none is set", async () => {
    expect(expectFailure(await tg(["list-config", "-t", "tool"], { TG_URL: secured.url }))).toBe(
      "tg: unauthorized: missing bearer token (HTTP 401; set TG_TOKEN)",
    );
    expect(expectFailure(await tg(["list-config", "-t", "tool"], { TG_URL: secured.url, TG_TOKEN: "wrong" }))).toBe(
      "tg: unauthorized: invalid bearer token (HTTP 401)",
    );
    expect((await tg(["list-config", "-t", "tool"], { TG_URL: secured.url, TG_TOKEN: "s3cret" })).code).toBe(0);
  });

  it("reports 400, 404 and 504 with the gateway's type and message", async () => {
    const env = { TG_URL: gateway.url };
    gateway.handle("mcp-tool", () => gatewayError(400, "bad-request", "name: name is required"));
    expect(expectFailure(await tg(invokeMcp, env))).toBe("tg: bad-request: name: name is required (HTTP 400)");

    gateway.handle("mcp-tool", () => gatewayError(404, "unknown-service", "unknown service 'mcp-tool'"));
    expect(expectFailure(await tg(invokeMcp, env))).toBe("tg: unknown-service: unknown service 'mcp-tool' (HTTP 404)");

    gateway.handle("agent", () => gatewayError(504, "timeout", "no reply on non-persistent://tg/response/agent within 30000 ms"));
    expect(expectFailure(await tg(["agent", "-q", "hi"], env))).toBe(
      "tg: timeout: no reply on non-persistent://tg/response/agent within 30000 ms (HTTP 504)",
    );
  });

  it("reports a gateway that sends something other than JSON", async () => {
    gateway.handle("mcp-tool", () => ({ status: 502, body: null, raw: "<html>Bad Gateway</html>" }));
    expect(expectFailure(await tg(invokeMcp, { TG_URL: gateway.url }))).toBe(
      "tg: the gateway replied HTTP 502 with a body that is not JSON: <html>Bad Gateway</html>",
    );
  });

  it("gives up after TG_TIMEOUT_MS", async () => {
    gateway.handle("mcp-tool", () => new Promise((resolve) => setTimeout(() => resolve(ok({ text: "late" })), 2_000)));
    expect(expectFailure(await tg(invokeMcp, { TG_URL: gateway.url, TG_TIMEOUT_MS: "200" }))).toBe(
      `tg: no reply from the gateway at ${gateway.url} within 200 ms (service 'mcp-tool')`,
    );
  });
});

describe("service-level and local errors", () => {
  it("reports an error inside a 200 reply", async () => {
    gateway.handle("mcp-tool", () => ok({ error: { type: "mcp-tool-error", message: "server said no" }, text: null, object: null }));
    expect(expectFailure(await tg(invokeMcp, { TG_URL: gateway.url }))).toBe("tg: mcp-tool-error: server said no");
  });

  it("reports a reply that is not the service's shape", async () => {
    gateway.handle("mcp-tool", () => ok({ error: null, text: 4 }));
    expect(expectFailure(await tg(invokeMcp, { TG_URL: gateway.url }))).toMatch(/^tg: unexpected reply from 'mcp-tool': text: /);
  });

  it("reports a bad environment before calling anything", async () => {
    expect(expectFailure(await tg(["list-config", "-t", "tool"], { TG_URL: "127.0.0.1:8088" }))).toBe(
      'tg: invalid environment: TG_URL="127.0.0.1:8088": must be an http(s) URL',
    );
  });

  it("reports usage errors on one line", async () => {
    expect(expectFailure(await tg(["get-config", "-t", "tool"], { TG_URL: gateway.url }))).toBe(
      "tg: required option '-k, --key <key>' not specified",
    );
    expect(expectFailure(await tg(["show-tool"], { TG_URL: gateway.url }))).toBe(
      "tg: unknown command 'show-tool' (Did you mean show-tools?)",
    );
    expect(gateway.requests).toEqual([]);
  });
});

describe("help and version", () => {
  it("prints help and version on stdout with exit 0", async () => {
    const help = await tg(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("invoke-mcp-tool");
    expect(help.stdout).toContain("TG_URL");
    const version = await tg(["--version"]);
    expect(version).toEqual({ code: 0, stdout: "0.1.0\n", stderr: "" });
  });
});
