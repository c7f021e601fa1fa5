import { describe, expect, it } from "vitest";
import { checkRpcBody } from "../../src/rpc-check.js";

describe("checkRpcBody: what the SDK would refuse, answered in a sentence", () => {
  it("lets valid requests, notifications and responses through", () => {
    expect(checkRpcBody({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x", arguments: {} } })).toBeUndefined();
    expect(checkRpcBody({ jsonrpc: "2.0", id: "a", method: "tools/list" })).toBeUndefined();
    expect(checkRpcBody({ jsonrpc: "2.0", method: "notifications/initialized" })).toBeUndefined();
    expect(checkRpcBody({ jsonrpc: "2.0", id: 3, result: {} })).toBeUndefined();
    expect(checkRpcBody([{ jsonrpc: "2.0", id: 1, method: "ping" }])).toBeUndefined();
  });

  it("refuses a malformed envelope with -32600 (HTTP 400), keeping a usable id", () => {
    expect(checkRpcBody("hello")).toEqual({
      status: 400,
      code: -32600,
      id: null,
      message: "invalid request: a JSON-RPC message is an object, not a string",
    });
    expect(checkRpcBody({ id: 4, method: "ping" })).toMatchObject({
      code: -32600,
      id: 4,
      message: `invalid request: 'jsonrpc' must be "2.0"`,
    });
    expect(checkRpcBody({ jsonrpc: "2.0", id: 5, method: 7 })).toMatchObject({
      message: "invalid request: 'method' must be a string, not a number",
    });
    expect(checkRpcBody({ jsonrpc: "2.0", id: 1.5, method: "ping" })).toMatchObject({
      id: null,
      message: "invalid request: 'id' must be a string or an integer, not a number",
    });
    expect(checkRpcBody({ jsonrpc: "2.0", id: 6, method: "ping", extra: true })).toMatchObject({
      id: 6,
      message: "invalid request: unexpected member 'extra' (a JSON-RPC message has jsonrpc, id, method and params)",
    });
  });

  it("refuses bad params with -32602 (HTTP 200, the request's own answer), also for methods this server lacks", () => {
    expect(checkRpcBody({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "x", arguments: null } })).toEqual({
      status: 200,
      code: -32602,
      id: 7,
      method: "tools/call",
      message: "invalid params for tools/call: 'arguments' must be an object, not null",
    });
    expect(checkRpcBody({ jsonrpc: "2.0", id: 8, method: "resources/list", params: "x" })).toMatchObject({
      code: -32602,
      message: "invalid params for resources/list: params must be an object, not a string",
    });
    expect(checkRpcBody({ jsonrpc: "2.0", id: 9, method: "initialize", params: {} })).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^invalid params for initialize: 'protocolVersion' is missing; /),
    });
  });

  it("refuses a request sent as a notification, and a batch by its first bad message", () => {
    expect(checkRpcBody({ jsonrpc: "2.0", method: "tools/list" })).toMatchObject({
      status: 400,
      code: -32600,
      message: "invalid request: tools/list is a request: send it with an 'id' (a notification gets no answer)",
    });
    expect(
      checkRpcBody([
        { jsonrpc: "2.0", id: 1, method: "ping" },
        { jsonrpc: "2.0", id: 2, method: "tools/call" },
      ]),
    ).toMatchObject({
      status: 400,
      code: -32602,
      id: 2,
      message: "batch message 1: invalid params for tools/call: params are missing (an object with the tool's 'name' and its 'arguments')",
    });
  });
});
