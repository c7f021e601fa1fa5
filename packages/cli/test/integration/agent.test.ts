import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GatewayDouble, ok } from "../support/gateway-double.js";
import { oneErrorLine, tg } from "../support/run-tg.js";

let gateway: GatewayDouble;
let env: Record<string, string>;

beforeAll(async () => {
  gateway = await GatewayDouble.start();
  env = { TG_URL: gateway.url };
});
afterAll(() => gateway.close());
beforeEach(() => {
  gateway.requests.length = 0;
});

const message = (message_type: string, content: string, extra: Record<string, unknown> = {}) => ({
  message_type,
  content,
  end_of_message: true,
  end_of_dialog: false,
  error: null,
  run_id: "run-1",
  catalog_revision: 3,
  ...extra,
});

describe("agent", () => {
  it("asks with streaming on and prints thoughts, observations and the answer in order", async () => {
    gateway.handle("agent", () =>
      ok([
        message("thought", "I should call tell-joke"),
        message("observation", "Why did the cat sit on the computer?"),
        message("answer", "Here is a cat joke: ...", { end_of_dialog: true }),
      ]),
    );
    const result = await tg(["agent", "-q", "Tell me a joke about cats", "-u", "alice"], env);
    expect(result).toEqual({
      code: 0,
      stdout:
        "thought: I should call tell-joke\nobservation: Why did the cat sit on the computer?\nHere is a cat joke: ...\n(run run-1 on catalog revision 3; tg show-run run-1)\n",
      stderr: "",
    });
    expect(gateway.requestsTo("agent")[0]!.body).toEqual({ question: "Tell me a joke about cats", user: "alice", streaming: true });
  });

  it("prints the steps before an error message, then fails with it", async () => {
    gateway.handle("agent", () =>
      ok([
        message("thought", "I should call tell-joke"),
        message("error", "", { error: { type: "agent-error", message: "the LLM is unreachable" }, end_of_dialog: true }),
      ]),
    );
    const result = await tg(["agent", "-q", "Tell me a joke"], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("thought: I should call tell-joke\n");
    expect(oneErrorLine(result)).toBe("tg: agent-error: the LLM is unreachable");
  });

  it("needs a question", async () => {
    const result = await tg(["agent"], env);
    expect(result.code).toBe(1);
    expect(oneErrorLine(result)).toBe("tg: required option '-q, --question <text>' not specified");
    expect(gateway.requests).toEqual([]);
  });
});

describe("list-runs", () => {
  it("refuses a --limit that is not a whole number above 0 without asking the gateway", async () => {
    for (const limit of ["abc", "0", "1.5"]) {
      const result = await tg(["list-runs", "--limit", limit], env);
      expect(result.code).toBe(1);
      expect(oneErrorLine(result)).toBe(`tg: --limit must be a whole number above 0, not '${limit}'`);
    }
    expect(gateway.requests).toEqual([]);
  });
});
