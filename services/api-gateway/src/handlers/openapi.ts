import { readFileSync } from "node:fs";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { FlowRequest, FlowResponse } from "@toolmesh/schema";
import { ServiceSchemas } from "../services.js";
import { SocketAuthFrame, SocketErrorFrame, SocketReplyFrame, SocketRequestFrame } from "./socket.js";

const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };

/**
 * Requests are described as clients send them and replies as clients get them: the input form, where a
 * field with a default may be absent (TrustGraph's kinds leave absent fields out) and JSON-encoded fields
 * are strings.
 */
function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" });
  return rest;
}

const ErrorBody = z.object({ error: z.object({ type: z.string(), message: z.string() }) });
/** TrustGraph's gateway answers its request checks with a bare message (`{"error": "unknown operation"}`). */
const MessageErrorBody = z.object({ error: z.string() });
/** A service that is neither a fixed one nor a tool-service descriptor: TrustGraph's body, and toolmesh's why. */
const UnknownKindBody = z.object({ error: z.literal("unknown kind"), detail: z.string() });

const pascal = (name: string) => name.replace(/(^|-)(\w)/g, (_m, _d, c: string) => c.toUpperCase());
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const errorResponse = (description: string, schema = "Error") => ({
  description,
  content: { "application/json": { schema: ref(schema) } },
});

/** The OpenAPI 3.1 document of this gateway; `secured` when a bearer token is configured. */
export function openApiDocument(secured: boolean): Record<string, unknown> {
  const schemas: Record<string, unknown> = {
    Error: jsonSchema(ErrorBody, "output"),
    MessageError: jsonSchema(MessageErrorBody, "output"),
    UnknownKind: jsonSchema(UnknownKindBody, "output"),
  };
  const bodies: unknown[] = [];
  const replies: unknown[] = [];
  for (const [service, { request, response: reply, streamed }] of Object.entries(ServiceSchemas)) {
    schemas[`${pascal(service)}Request`] = jsonSchema(request, "input");
    schemas[`${pascal(service)}Response`] = jsonSchema(reply, "input");
    bodies.push(ref(`${pascal(service)}Request`));
    replies.push(streamed ? { type: "array", items: ref(`${pascal(service)}Response`) } : ref(`${pascal(service)}Response`));
  }
  // TrustGraph's flow service's wire (the gateway forwards flow operations to its flow-svc).
  schemas.FlowRequest = jsonSchema(FlowRequest, "input");
  schemas.FlowResponse = jsonSchema(FlowResponse, "input");
  schemas.SocketAuthFrame = jsonSchema(SocketAuthFrame, "input");
  schemas.SocketRequestFrame = jsonSchema(SocketRequestFrame, "input");
  schemas.SocketReplyFrame = jsonSchema(SocketReplyFrame, "output");
  schemas.SocketErrorFrame = jsonSchema(SocketErrorFrame, "output");

  // The flow route's failure statuses: toolmesh's own kinds only (TrustGraph's answer 200, see there).
  const failures = {
    "400": errorResponse("bad-request: the body is not this service's request (issues in one line)"),
    ...(secured ? { "401": errorResponse("auth failure: missing or wrong bearer token", "MessageError") } : {}),
    "500": errorResponse("internal-error: details stay in the gateway log"),
    "502": errorResponse("bad-gateway / config-error: the broker or the service's reply could not be used"),
    "503": errorResponse("unavailable: configuration not loaded yet, or the gateway is shutting down"),
    "504": errorResponse("timeout: no reply in time; the message names the request topic"),
  };

  return {
    openapi: "3.1.0",
    info: {
      title: "toolmesh api-gateway",
      version,
      description:
        "Translates HTTP and WebSocket requests into toolmesh's Pulsar request/response wire. Request and " +
        'reply bodies are the services\' wire messages. Gateway failures use one shape: {"error": {"type", "message"}}; ' +
        "a service's own error travels inside its reply (status 200). As on the wire, `config` and `arguments` are " +
        "JSON-encoded strings, and config `value`s are JSON text. TrustGraph 2.11's gateway surface is served as " +
        "TrustGraph serves it: `POST /api/v1/{kind}` for global services (config), and for its kinds (config, " +
        "mcp-tool, agent) replies leave absent fields out, mcp-tool `parameters` may be a JSON object, a structured " +
        "result is the object `object`, and failures come back as status 200 with `error` in the body.",
    },
    ...(secured ? { security: [{ bearer: [] }] } : {}),
    paths: {
      "/api/v1/{kind}": {
        post: {
          summary: "TrustGraph's global services: one config or flow operation in the caller's workspace",
          description:
            "Checked in TrustGraph's order: JSON object body, `operation`, `{kind}:{operation}` known (config: get, list, " +
            "getvalues, getvalues-all-ws, config, put, delete; flow: list-blueprints, get-blueprint, put-blueprint, " +
            "delete-blueprint, list-flows, get-flow, start-flow, stop-flow), the bearer token, then the workspace (body " +
            "`workspace`, else `default`) registered in config `__workspaces__`. Sent to the workspace's own config queue, " +
            "or its flow queue, which TrustGraph's flow-svc serves (flow fields are dashed: `blueprint-name`, `flow-id`). " +
            "`getvalues-all-ws` is answered `bad-operation`, as TrustGraph's per-workspace queue answers it.",
          parameters: [{ name: "kind", in: "path", required: true, schema: { type: "string", enum: ["config", "flow"] } }],
          requestBody: {
            required: true,
            content: { "application/json": { schema: { anyOf: [ref("ConfigRequest"), ref("FlowRequest")] } } },
          },
          responses: {
            "200": {
              description:
                'The config or flow reply, absent fields left out; or `{"error": {type, message}}` when the service or the gateway failed.',
              content: { "application/json": { schema: { anyOf: [ref("ConfigResponse"), ref("FlowResponse"), ref("Error")] } } },
            },
            "400": errorResponse("invalid json | body must be an object | missing operation | unknown operation", "MessageError"),
            ...(secured ? { "401": errorResponse("auth failure: missing or wrong bearer token", "MessageError") } : {}),
            "404": errorResponse("workspace not found: the workspace is not registered", "MessageError"),
          },
        },
      },
      "/api/v1/flow/{flow}/service/{service}": {
        post: {
          summary: "Send one request to a service and return its reply (or all replies of a stream)",
          parameters: [
            {
              name: "flow",
              in: "path",
              required: true,
              schema: { type: "string" },
              description: "Any name is accepted; toolmesh runs one flow for now.",
            },
            {
              name: "service",
              in: "path",
              required: true,
              schema: { type: "string" },
              description:
                "config, mcp-tool, tool-registry (one reply), agent (streamed), or a tool-service id (streamed, body ToolServiceRequest).",
            },
          ],
          requestBody: { required: true, content: { "application/json": { schema: { anyOf: bodies } } } },
          responses: {
            "200": {
              description:
                "The reply of a single-reply service, or the array of every reply of a streamed one, in order (a tool " +
                'service: always the array). TrustGraph\'s answers are 200 too: `{"error": "<message>"}` for a body ' +
                'that is not JSON or a flow other than `default`, and `{"error": {type, message}}` when a request to ' +
                "one of its kinds (config, mcp-tool, agent) failed.",
              content: { "application/json": { schema: { anyOf: [...replies, ref("Error"), ref("MessageError")] } } },
            },
            ...failures,
            "404": errorResponse(
              "unknown kind: neither a fixed service nor the id of a tool-service descriptor (`detail` says which)",
              "UnknownKind",
            ),
          },
        },
      },
      "/api/v1/socket": {
        get: {
          summary: "WebSocket: many requests in flight, replies interleaved by id",
          description:
            "Send SocketRequestFrame messages. Each reply arrives as a SocketReplyFrame with the request's id; " +
            "`complete` is true on the last. Failures arrive as SocketErrorFrame (id absent when the frame had none; " +
            "types error, auth-required, unknown-service, workspace-not-found); the socket stays open. With a token " +
            'configured, authenticate first with a SocketAuthFrame (answered `{"type": "auth-ok", "default_workspace"}` ' +
            'or `{"type": "auth-failed", "error"}`), or send the token as a bearer header or `?token=`.',
          parameters: [{ name: "token", in: "query", required: false, schema: { type: "string" } }],
          // No 401 here even when secured: the socket authenticates by its first frame (SocketAuthFrame).
          responses: { "101": { description: "Switched to the WebSocket protocol" } },
        },
      },
      "/api/v1/openapi.json": { get: { summary: "This document", responses: { "200": { description: "OpenAPI 3.1 JSON" } } } },
    },
    components: { schemas, securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  };
}

export function registerOpenApiRoute(app: FastifyInstance, secured: boolean): void {
  const document = openApiDocument(secured);
  app.get("/openapi.json", async () => document);
}
