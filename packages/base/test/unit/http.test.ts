import { connect } from "node:net";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorType, ServiceError } from "@toolmesh/schema";
import { ServiceMetrics, connectionTimeoutFor, createHttpServer } from "../../src/index.js";

// Issue 12, item 12: fastify's own 414/400 answers had fastify's body shape and echoed the path; Node's
// parser errors (431, 400) likewise. Every answer uses `error: {type, message}`.
const app = createHttpServer({ logger: pino({ level: "silent" }), metrics: new ServiceMetrics("http-test"), readiness: new Map() });
app.post("/flow/:flow/service/:service", async (request) => ({ params: request.params }));
app.get("/database-away", async () => {
  throw new ServiceError(ErrorType.unavailable, "the database cannot be reached (ECONNREFUSED); retry shortly");
});
app.get("/broken", async () => {
  throw new ServiceError(ErrorType.internal, "relation registry_revisions at 10.0.0.5 is corrupt");
});
let address = "";

beforeAll(async () => {
  address = await app.listen({ host: "127.0.0.1", port: 0 });
});
afterAll(() => app.close());

/** Sends raw bytes and returns the raw answer (status line, headers, body). */
function raw(text: string): Promise<string> {
  const { port } = new URL(address);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), "127.0.0.1", () => socket.write(text));
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk.toString()));
    socket.on("close", () => resolve(answer));
    socket.on("error", reject);
  });
}

const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)) as unknown;

describe("error answers of the HTTP server itself", () => {
  it("414 for an over-long path segment, without echoing it", async () => {
    const segment = `x${"y".repeat(300)}`;
    const response = await fetch(`${address}/flow/default/service/${segment}`, { method: "POST" });
    expect(response.status).toBe(414);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ error: { type: "bad-request", message: "a path segment is too long" } });
    expect(text).not.toContain("yyyy");
  });

  it("400 for a malformed percent-encoding, without echoing the path", async () => {
    const response = await fetch(`${address}/flow/%zz<b>/service/x`, { method: "POST" });
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      error: { type: "bad-request", message: "the request path is not a valid URL (bad percent-encoding)" },
    });
    expect(text).not.toContain("%zz");
  });

  it("503 with its own message for a route's retry-later; any other 5xx as a bare internal error", async () => {
    const away = await fetch(`${address}/database-away`);
    expect(away.status).toBe(503);
    expect(await away.json()).toEqual({
      error: { type: "unavailable", message: "the database cannot be reached (ECONNREFUSED); retry shortly" },
    });
    const broken = await fetch(`${address}/broken`);
    expect(broken.status).toBe(500);
    expect(await broken.json()).toEqual({ error: { type: "internal-error", message: "internal error; see the service log" } });
  });

  it("404 in the error shape", async () => {
    const response = await fetch(`${address}/nothing/here`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: { type: "not-found", message: "no such route" } });
  });

  it("431 for headers too large and 400 for what is not HTTP, from Node's parser", async () => {
    const big = await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"z".repeat(20_000)}\r\n\r\n`);
    expect(big).toMatch(/^HTTP\/1\.1 431 /);
    expect(bodyOf(big)).toEqual({ error: { type: "bad-request", message: "the request headers are too large" } });
    const garbage = await raw("NOT HTTP AT ALL\r\n\r\n");
    expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(garbage)).toEqual({ error: { type: "bad-request", message: "the request is not valid HTTP" } });
  });
});

describe("connectionTimeoutFor", () => {
  it("keeps idle connections longer than the longest call, 30 s at least", () => {
    expect(connectionTimeoutFor()).toBe(30_000);
    expect(connectionTimeoutFor(10_000)).toBe(30_000);
    expect(connectionTimeoutFor(120_000)).toBe(125_000);
    expect(app.initialConfig.connectionTimeout).toBe(30_000);
  });
});
