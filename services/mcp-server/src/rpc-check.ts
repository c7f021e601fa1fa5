import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  RequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { kindOf } from "@toolmesh/schema";

/** Why a POSTed JSON-RPC message is refused before the SDK sees it, and how to answer. */
export interface RpcRefusal {
  /** HTTP status: 200 for a request's error (clients read it as that request's answer), 400 otherwise. */
  status: number;
  code: number;
  id: string | number | null;
  method?: string;
  message: string;
}

/** The requests this server answers, with the SDK's own schemas: whatever they accept, the SDK accepts. */
const REQUESTS: Record<string, z.ZodType> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  "tools/list": ListToolsRequestSchema,
  "tools/call": CallToolRequestSchema,
};

const MISSING_PARAMS: Record<string, string> = {
  "tools/call": "params are missing (an object with the tool's 'name' and its 'arguments')",
};

const MEMBERS = new Set(["jsonrpc", "id", "method", "params"]);

const EXPECTED: Record<string, string> = {
  record: "an object",
  object: "an object",
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "a boolean",
  array: "an array",
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const isId = (value: unknown): value is string | number =>
  typeof value === "string" || (typeof value === "number" && Number.isSafeInteger(value));

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) value = isObject(value) || Array.isArray(value) ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

/** One zod issue of the SDK's schema as a short sentence about the client's params (no zod dump). */
function describe(issue: z.core.$ZodIssue, message: Record<string, unknown>, method: string): string {
  const path = issue.path[0] === "params" ? issue.path.slice(1) : issue.path;
  const name = path.length === 0 ? "params" : `'${path.map(String).join(".")}'`;
  const value = valueAt(message, issue.path);
  if (issue.code === "invalid_type" && value === undefined) {
    return path.length === 0 ? (MISSING_PARAMS[method] ?? "params are missing") : `${name} is missing`;
  }
  if (issue.code === "invalid_type") return `${name} must be ${EXPECTED[issue.expected] ?? issue.expected}, not ${kindOf(value)}`;
  if (issue.code === "invalid_union") {
    const expected = issue.errors.map((branch) => branch[0]).filter((i) => i?.code === "invalid_type");
    if (expected.length === issue.errors.length && expected.length > 0) {
      const names = expected.map((i) => EXPECTED[(i as z.core.$ZodIssueInvalidType).expected] ?? i!.message);
      return `${name} must be ${names.join(" or ")}, not ${kindOf(value)}`;
    }
  }
  return `${name}: ${issue.message}`;
}

function refuse(status: number, code: number, id: unknown, message: string, method?: string): RpcRefusal {
  const text = code === ErrorCode.InvalidRequest ? `invalid request: ${message}` : message;
  return { status, code, id: isId(id) ? id : null, message: text, ...(method === undefined ? {} : { method }) };
}

/**
 * Checks one JSON-RPC message the way the SDK will, but answers what is wrong in a sentence: a malformed
 * envelope is -32600 Invalid Request, a request's bad params -32602 Invalid params (the SDK answers -32603
 * with a zod dump, typescript-sdk#2284, or a -32700 parse error for valid JSON), and a request sent as a
 * notification (no id, so it would be silently dropped) is refused. Responses are left to the SDK.
 */
function checkMessage(message: unknown): RpcRefusal | undefined {
  if (!isObject(message)) return refuse(400, ErrorCode.InvalidRequest, null, `a JSON-RPC message is an object, not ${kindOf(message)}`);
  const { id, method } = message;
  if (message.jsonrpc !== "2.0") return refuse(400, ErrorCode.InvalidRequest, id, `'jsonrpc' must be "2.0"`);
  if (!("method" in message)) return undefined;
  if (typeof method !== "string") return refuse(400, ErrorCode.InvalidRequest, id, `'method' must be a string, not ${kindOf(method)}`);
  if ("id" in message && !isId(id))
    return refuse(400, ErrorCode.InvalidRequest, null, `'id' must be a string or an integer, not ${kindOf(id)}`, method);
  const extra = Object.keys(message).filter((key) => !MEMBERS.has(key));
  if (extra.length > 0)
    return refuse(
      400,
      ErrorCode.InvalidRequest,
      id,
      `unexpected member '${extra[0]}' (a JSON-RPC message has jsonrpc, id, method and params)`,
      method,
    );
  const schema = REQUESTS[method];
  if (!("id" in message)) {
    if (schema)
      return refuse(
        400,
        ErrorCode.InvalidRequest,
        null,
        `${method} is a request: send it with an 'id' (a notification gets no answer)`,
        method,
      );
    return undefined;
  }
  const parsed = (schema ?? RequestSchema).safeParse({ method, ...("params" in message ? { params: message.params } : {}) });
  if (parsed.success) return undefined;
  const reasons = parsed.error.issues.slice(0, 3).map((issue) => describe(issue, message, method));
  return refuse(200, ErrorCode.InvalidParams, id, `invalid params for ${method}: ${reasons.join("; ")}`, method);
}

/** A single message or a batch (every message must pass; the SDK, too, refuses a batch as a whole). */
export function checkRpcBody(body: unknown): RpcRefusal | undefined {
  if (!Array.isArray(body)) return checkMessage(body);
  for (const [index, message] of body.entries()) {
    const refusal = checkMessage(message);
    if (refusal) return { ...refusal, status: 400, message: `batch message ${index}: ${refusal.message}` };
  }
  return undefined;
}
