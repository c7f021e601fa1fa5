import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NO_LLM_MESSAGE } from "../../src/handlers/agent-request.js";
import { type AgentOnBus, agentOnBus } from "../support/agent-on-bus.js";

// What goes wrong in an agent run reaches the caller as one final error message {type, message}, is
// recorded when a run had begun, and the agent keeps serving.
let agent: AgentOnBus;

beforeAll(async () => {
  agent = await agentOnBus();
});
afterAll(() => agent.close());

describe("agent errors on the in-memory bus", () => {
  it("refuses a malformed request with bad-request, ending the dialog", async () => {
    const [reply, ...more] = await agent.ask({ question: "", streaming: true });
    expect(more).toEqual([]);
    expect(reply).toMatchObject({ message_type: "error", end_of_dialog: true, error: { type: "bad-request" } });
    expect(reply!.error!.message).toMatch(/question is required/);
  });

  it("says so when the pinned catalog revision does not exist", async () => {
    const replies = await agent.ask({ question: "anything", catalog_revision: 9 });
    expect(replies).toEqual([
      expect.objectContaining({
        message_type: "error",
        end_of_dialog: true,
        run_id: null,
        error: { type: "agent-error", message: "cannot get the tool catalog: tool registry: no catalog revision 9" },
      }),
    ]);
  });

  it("ends a run whose LLM call fails with an error message, and records the run as failed", async () => {
    const [reply, ...more] = await agent.ask({ question: "nobody scripted this", streaming: true });
    expect(more).toEqual([]);
    expect(reply).toMatchObject({ message_type: "error", end_of_dialog: true, error: { type: "agent-error" } });
    expect(reply!.error!.message).toMatch(/^LLM call failed: /);
    const { run } = await agent.runs({ operation: "get", run_id: reply!.run_id! });
    expect(run).toMatchObject({ status: "failed", error: reply!.error!.message });
  });

  it("answers agent-runs reads it cannot serve with bad-request and not-found", async () => {
    expect((await agent.runs({ operation: "get" })).error).toEqual({ type: "bad-request", message: "'get' needs a run_id" });
    expect((await agent.runs({ operation: "get", run_id: "no-such-run" })).error).toEqual({
      type: "not-found",
      message: "no agent run 'no-such-run'",
    });
  });
});

describe("agent with no LLM configured", () => {
  it("answers every run with the error that says which settings are missing", async () => {
    const unconfigured = await agentOnBus({ withLlm: false });
    try {
      const replies = await unconfigured.ask({ question: "hello?", streaming: true });
      expect(replies).toEqual([
        expect.objectContaining({ message_type: "error", end_of_dialog: true, error: { type: "agent-error", message: NO_LLM_MESSAGE } }),
      ]);
    } finally {
      await unconfigured.close();
    }
  });
});
