import { describe, expect, it } from "vitest";
import { loadEnv } from "../../src/env.js";

describe("config env", () => {
  it("bounds values at 1 MiB and replies at 4 MiB by default", () => {
    expect(loadEnv({})).toMatchObject({ CONFIG_MAX_VALUE_BYTES: 1_048_576, CONFIG_MAX_REPLY_BYTES: 4_194_304 });
  });

  it("refuses a value bound that a reply could not carry, naming the variable", () => {
    expect(() => loadEnv({ CONFIG_MAX_VALUE_BYTES: "5000000" })).toThrow(
      /CONFIG_MAX_VALUE_BYTES="5000000": must be smaller than CONFIG_MAX_REPLY_BYTES \(4194304\)/,
    );
    expect(() => loadEnv({ CONFIG_MAX_REPLY_BYTES: "0" })).toThrow(/CONFIG_MAX_REPLY_BYTES="0"/);
  });
});
