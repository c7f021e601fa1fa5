import { describe, expect, it } from "vitest";
import { AgentRequest, AgentResponse, ToolAnnouncement, ToolBinding, ToolRegistryPush, ToolRegistryRequest } from "../../src/index.js";

describe("agent wire", () => {
  it("decodes a minimal request with defaults, and a pinned one", () => {
    const request = AgentRequest.parse({ question: "tell me a joke" });
    expect(request).toMatchObject({ user: "", streaming: false, catalog_revision: null, history: [] });
    expect(AgentRequest.parse({ question: "q", catalog_revision: 3 }).catalog_revision).toBe(3);
  });

  it("rejects a request without a question", () => {
    expect(AgentRequest.safeParse({ user: "alice" }).success).toBe(false);
  });

  it("round-trips each response type", () => {
    for (const message_type of ["thought", "observation", "answer", "error"] as const) {
      const response = {
        message_type,
        content: "c",
        end_of_message: true,
        end_of_dialog: message_type === "answer",
        error: null,
        run_id: "r1",
        catalog_revision: 2,
        in_token: message_type === "answer" ? 120 : null,
        out_token: message_type === "answer" ? 14 : null,
        model: message_type === "answer" ? "llama3" : null,
      };
      expect(AgentResponse.parse(response)).toEqual(response);
    }
  });

  it("reads a TrustGraph agent response without toolmesh's or the usage fields", () => {
    expect(AgentResponse.parse({ message_type: "answer", content: "a", end_of_dialog: true })).toMatchObject({
      in_token: null,
      out_token: null,
      model: null,
    });
  });
});

describe("tool-registry wire", () => {
  it("decodes operations and refuses unknown ones", () => {
    expect(ToolRegistryRequest.parse({ operation: "diff", from_revision: 1, to_revision: 2 })).toMatchObject({
      operation: "diff",
      from_revision: 1,
    });
    expect(ToolRegistryRequest.safeParse({ operation: "wipe" }).success).toBe(false);
  });

  it("decodes a push and an announcement", () => {
    const push = { revision_number: 2, content_hash: "ab", created_at: "2026-12-02T00:00:00Z", tool_count: 3 };
    expect(ToolRegistryPush.parse(push)).toEqual(push);
    const announcement = ToolAnnouncement.parse({
      service_id: "joke-service",
      announced_at: "2026-12-02T00:00:00Z",
      manifest: [
        {
          tool_id: "joke-service.tell-joke",
          name: "tell-joke",
          parameters_schema: { type: "object" },
          binding: {
            kind: "tool-service",
            request_topic: "non-persistent://tg/request/joke",
            response_topic: "non-persistent://tg/response/joke",
          },
        },
      ],
    });
    expect(announcement.manifest[0]?.binding).toMatchObject({ kind: "tool-service", config: {} });
  });

  it("refuses a manifest entry whose name an LLM could not call", () => {
    const entry = {
      tool_id: "x",
      name: "tell joke!",
      parameters_schema: {},
      binding: { kind: "text-completion" },
    };
    expect(ToolAnnouncement.safeParse({ service_id: "s", announced_at: "t", manifest: [entry] }).success).toBe(false);
  });

  it("reads binding topics in either TrustGraph form, and routes an mcp-tool binding only with both topics", () => {
    expect(ToolBinding.parse({ kind: "tool-service", request_topic: "request:tg:joke", response_topic: "response:tg:joke" })).toMatchObject(
      {
        request_topic: "non-persistent://tg/request/joke",
        response_topic: "non-persistent://tg/response/joke",
      },
    );
    expect(
      ToolBinding.parse({
        kind: "mcp-tool",
        mcp_tool: "calc",
        request_topic: "request:tg:mcp-tool-tg",
        response_topic: "response:tg:mcp-tool-tg",
      }),
    ).toEqual({
      kind: "mcp-tool",
      mcp_tool: "calc",
      request_topic: "non-persistent://tg/request/mcp-tool-tg",
      response_topic: "non-persistent://tg/response/mcp-tool-tg",
    });
    expect(ToolBinding.safeParse({ kind: "mcp-tool", mcp_tool: "calc", request_topic: "request:tg:x" }).success).toBe(false);
    expect(ToolBinding.safeParse({ kind: "tool-service", request_topic: "joke", response_topic: "response:tg:joke" }).success).toBe(false);
  });
});
