import { Ajv2020 } from "ajv/dist/2020.js";
import type { InjectOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceRuntime } from "@toolmesh/base";
import { useBroker } from "@toolmesh/test-support";
import {
  type RunningGateway,
  registerToolService,
  startConfigService,
  startGateway,
  startTools,
  textTool,
  toolRequest,
} from "./fixture.js";

// A client generated from /api/v1/openapi.json trusts every status and body it lists: each answer here,
// good and bad, must be one the document describes (its status listed, its body valid for that status).
const text = textTool();
let config: { stop: () => Promise<void> };
let tools: ServiceRuntime;
let gw: RunningGateway;
let doc: {
  paths: Record<string, { post: { responses: Record<string, { content?: Record<string, { schema: object }> }> } }>;
  components: object;
};
const ajv = new Ajv2020({ strict: false, allErrors: true });

const FLOW = "/api/v1/flow/{flow}/service/{service}";
const GLOBAL = "/api/v1/{kind}";

beforeAll(async () => {
  const broker = await useBroker();
  config = await startConfigService(broker);
  tools = await startTools(broker, [text]);
  gw = await startGateway(broker);
  await registerToolService(gw, text.id, text.topic);
  doc = JSON.parse((await gw.runtime.http.inject({ method: "GET", url: "/api/v1/openapi.json" })).body);
});

afterAll(async () => {
  await gw?.runtime.stop();
  await tools?.stop();
  await config?.stop();
});

/** Sends the request and checks the answer against the document's responses for `path`; returns it. */
async function described(path: string, url: string, payload: string | object, expectedStatus: number) {
  const options: InjectOptions = { method: "POST", url, headers: { "content-type": "application/json" }, payload };
  const response = await gw.runtime.http.inject(options);
  const what = `POST ${url} ${typeof payload === "string" ? payload : JSON.stringify(payload)} -> ${response.statusCode} ${response.body}`;
  expect(response.statusCode, what).toBe(expectedStatus);
  const listed = doc.paths[path]!.post.responses[String(response.statusCode)];
  expect(listed, `${what}: status not in the document`).toBeDefined();
  const validate = ajv.compile({ components: doc.components, ...listed!.content!["application/json"]!.schema });
  expect(validate(response.json()), `${what}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  return response.json() as unknown;
}

describe("every answer is described by the gateway's own OpenAPI document", () => {
  const flow = (service: string, name = "default") => `/api/v1/flow/${name}/service/${service}`;

  it("the flow route: replies, and each way a request can fail", async () => {
    await described(FLOW, flow(text.id), toolRequest({ topic: "cats" }), 200);
    // TrustGraph's answers: 200 with a bare message, or with {type, message} for its kinds.
    expect(await described(FLOW, flow(text.id), "{not json", 200)).toMatchObject({ error: expect.any(String) });
    expect(await described(FLOW, flow(text.id, "other-flow"), toolRequest(), 200)).toEqual({ error: "Invalid flow default/other-flow" });
    expect(await described(FLOW, flow("config"), { operation: 7 }, 200)).toMatchObject({ error: { type: "bad-request" } });
    // mcp-tool parameters that are not an object, sent as TrustGraph's CLI sends them (`tg-invoke-mcp-tool -P '[1]'`).
    for (const parameters of [[1], "[1]", 5])
      expect(await described(FLOW, flow("mcp-tool"), { name: "calc", parameters }, 200), JSON.stringify(parameters)).toEqual({
        error: {
          type: "bad-request",
          message: expect.stringMatching(
            /^invalid mcp-tool request: parameters: must be a JSON object \("name": value, \.\.\.\), not (an array|a number)$/,
          ),
        },
      });
    await described(FLOW, flow("config"), { operation: "list", type: "tool-service" }, 200);
    // toolmesh's own kinds keep HTTP codes.
    expect(await described(FLOW, flow("no-such-service"), toolRequest(), 404)).toMatchObject({ error: "unknown kind" });
    expect(await described(FLOW, flow(text.id), { arguments: 5 }, 400)).toMatchObject({ error: { type: "bad-request" } });
    expect(await described(FLOW, flow("tool-registry"), { operation: "no-such-operation" }, 400)).toMatchObject({
      error: { type: "bad-request" },
    });
  });

  it("TrustGraph's global route: its checks in its order", async () => {
    await described(GLOBAL, "/api/v1/config", { operation: "list", type: "tool-service" }, 200);
    await described(GLOBAL, "/api/v1/config", "{not json", 400);
    await described(GLOBAL, "/api/v1/config", [], 400);
    await described(GLOBAL, "/api/v1/config", {}, 400);
    await described(GLOBAL, "/api/v1/config", { operation: "fly" }, 400);
    await described(GLOBAL, "/api/v1/config", { operation: "getvalues-all-ws", type: "tool" }, 200);
    await described(GLOBAL, "/api/v1/config", { operation: "list", type: "tool", workspace: "nowhere" }, 404);
  });

  it("reads a JSON body whatever content type it is sent with, as TrustGraph's gateway does (curl -d sends a form type)", async () => {
    for (const contentType of ["application/x-www-form-urlencoded", "text/plain", "application/json; charset=utf-8", undefined]) {
      const options: InjectOptions = {
        method: "POST",
        url: "/api/v1/config",
        headers: contentType ? { "content-type": contentType } : {},
        payload: JSON.stringify({ operation: "list", type: "tool-service" }),
      };
      const response = await gw.runtime.http.inject(options);
      expect(`${contentType}: ${response.statusCode} ${response.body}`).toMatch(/: 200 \{"version":/);
      const flow = await gw.runtime.http.inject({
        ...options,
        url: `/api/v1/flow/default/service/${text.id}`,
        payload: JSON.stringify(toolRequest()),
      });
      expect(`${contentType}: ${flow.statusCode} ${flow.body}`).toMatch(/: 200 \[\{"response":"hello alice/);
    }
  });
});
