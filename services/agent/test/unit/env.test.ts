import { describe, expect, it } from "vitest";
import { loadEnv } from "../../src/env.js";

describe("agent env", () => {
  it("beats every 10 s and gives an instance up after 30 s by default", () => {
    expect(loadEnv({})).toMatchObject({ AGENT_HEARTBEAT_INTERVAL_MS: 10_000, AGENT_INSTANCE_STALE_MS: 30_000 });
  });

  it("refuses a stale bound that a live instance could miss between two beats", () => {
    expect(() => loadEnv({ AGENT_HEARTBEAT_INTERVAL_MS: "10000", AGENT_INSTANCE_STALE_MS: "15000" })).toThrow(
      /AGENT_INSTANCE_STALE_MS="15000": must be at least twice AGENT_HEARTBEAT_INTERVAL_MS \(10000\)/,
    );
  });
});
