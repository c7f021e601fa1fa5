import { describe, expect, it } from "vitest";
import { ConfigPush, ConfigRequest, ConfigResponse } from "../../src/index.js";

describe("config wire", () => {
  it("decodes the design's request and defaults the workspace", () => {
    const wire = {
      operation: "put",
      keys: [{ type: "tool", key: "tell-joke" }],
      type: "tool",
      values: [{ type: "tool", key: "tell-joke", value: '{"type": "tool-service"}' }],
    };
    const request = ConfigRequest.parse(wire);
    expect(request.workspace).toBe("default");
    expect(request.values[0]?.value).toBe('{"type": "tool-service"}');
    expect(ConfigRequest.parse({ ...wire, workspace: "team-a" }).workspace).toBe("team-a");
  });

  it("reads the nulls TrustGraph's api-gateway sends for the fields an operation does not use", () => {
    // Its config translator's `put`, as it arrives on request:tg:config:<workspace>.
    const put = ConfigRequest.parse({
      operation: "put",
      workspace: "default",
      keys: null,
      type: null,
      values: [{ type: "demo", key: "k1", value: '{"a": 1}', workspace: "" }],
    });
    expect(put).toEqual({ operation: "put", workspace: "default", keys: [], values: [{ type: "demo", key: "k1", value: '{"a": 1}' }] });
    expect(ConfigRequest.parse({ operation: "get", workspace: "w", keys: [{ type: "t", key: "k" }], type: null, values: null })).toEqual({
      operation: "get",
      workspace: "w",
      keys: [{ type: "t", key: "k" }],
      values: [],
    });
    expect(ConfigRequest.parse({ operation: "list", keys: null, type: "tool", values: null }).type).toBe("tool");
    // null stands for "absent" only: a wrong type is still refused.
    expect(ConfigRequest.safeParse({ operation: "list", type: 3 }).success).toBe(false);
    expect(ConfigRequest.safeParse({ operation: "put", values: "x" }).success).toBe(false);
  });

  it("rejects an unknown operation and a key without a type", () => {
    const bad = ConfigRequest.safeParse({ operation: "drop" });
    expect(bad.success).toBe(false);
    expect(ConfigRequest.safeParse({ operation: "get", keys: [{ key: "x" }] }).success).toBe(false);
  });

  it("round-trips the design's response and push", () => {
    const response = {
      version: 7,
      values: [{ type: "tool", key: "k", value: "{}" }],
      directory: ["k"],
      config: { tool: { k: "{}" } },
      error: null,
    };
    expect(ConfigResponse.parse(response)).toEqual(response);
    expect(ConfigPush.parse({ version: 7, changes: { tool: ["default"] } })).toEqual({
      version: 7,
      changes: { tool: ["default"] },
      workspace_changes: null,
    });
  });

  it("reads TrustGraph's forms: missing values as null, workspaces in values, empty workspace, workspace changes", () => {
    const reply = ConfigResponse.parse({
      version: 5,
      values: [
        { type: "agent", key: "tool-index", value: null },
        { workspace: "w", type: "tool", key: "k", value: "" },
      ],
    });
    expect(reply.values).toEqual([
      { type: "agent", key: "tool-index", value: null },
      { workspace: "w", type: "tool", key: "k", value: "" },
    ]);
    // TrustGraph's processors serialise every field: `workspace: ""` on a *-all-ws request, and in each value.
    const request = ConfigRequest.parse({ operation: "getkeys-all-ws", workspace: "", keys: [], type: "tool", values: [] });
    expect(request).toMatchObject({ operation: "getkeys-all-ws", workspace: "" });
    expect(
      ConfigRequest.parse({ operation: "put", workspace: "w", values: [{ type: "t", key: "k", value: "v", workspace: "" }] }).values,
    ).toEqual([{ type: "t", key: "k", value: "v" }]);
    expect(ConfigPush.parse({ version: 3, changes: {}, workspace_changes: { created: ["w"], deleted: [] } }).workspace_changes).toEqual({
      created: ["w"],
      deleted: [],
    });
  });
});
