import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RegistryOnBus, registryOnBus } from "../support/registry-on-bus.js";

// Requests the registry cannot answer get `error: {type, message}` on the bus, and it keeps serving.
let registry: RegistryOnBus;

beforeAll(async () => {
  registry = await registryOnBus();
  await registry.config.set("tool", "chat", { type: "text-completion", name: "chat" });
  await registry.revision(1);
});
afterAll(() => registry.close());

describe("tool-registry bad requests", () => {
  it("answers a malformed request with bad-request naming the field", async () => {
    const unknown = await registry.askRaw({ operation: "explode" });
    expect(unknown.error?.type).toBe("bad-request");
    expect(unknown.error?.message).toMatch(/operation/);
    const negative = await registry.askRaw({ operation: "get-revision", revision_number: -1 });
    expect(negative.error?.type).toBe("bad-request");
    expect(negative.error?.message).toMatch(/revision_number/);
    expect((await registry.askRaw("current")).error?.type).toBe("bad-request");
  });

  it("says what is missing for a revision it does not have, and what to give when nothing is named", async () => {
    expect((await registry.ask({ operation: "get-revision", revision_number: 99 })).error).toEqual({
      type: "not-found",
      message: "no catalog revision 99",
    });
    expect((await registry.ask({ operation: "get-revision", content_hash: "f".repeat(64) })).error).toEqual({
      type: "not-found",
      message: `no catalog revision with hash ${"f".repeat(64)}`,
    });
    expect((await registry.ask({ operation: "get-revision" })).error).toEqual({
      type: "bad-request",
      message: "give revision_number or content_hash",
    });
    expect((await registry.ask({ operation: "diff" })).error).toEqual({
      type: "bad-request",
      message: "revision 1 has no earlier revision to compare with",
    });
    expect((await registry.ask({ operation: "diff", from_revision: 1, to_revision: 7 })).error).toEqual({
      type: "not-found",
      message: "no catalog revision 7",
    });
  });

  it("keeps serving after bad requests", async () => {
    const current = await registry.ask({ operation: "current" });
    expect(current.error).toBeNull();
    expect(current.revision!.tools.map((t) => t.tool_id)).toEqual(["config.chat"]);
  });
});
