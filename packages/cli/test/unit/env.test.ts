import { describe, expect, it } from "vitest";
import { parseCliEnv } from "../../src/env.js";

describe("parseCliEnv", () => {
  it("defaults to the local gateway with no token", () => {
    expect(parseCliEnv({})).toEqual({ TG_URL: "http://127.0.0.1:8088", TG_TIMEOUT_MS: 120_000 });
  });

  it("treats empty values as unset and coerces the timeout", () => {
    expect(parseCliEnv({ TG_URL: "", TG_TOKEN: "", TG_TIMEOUT_MS: "500" })).toEqual({
      TG_URL: "http://127.0.0.1:8088",
      TG_TIMEOUT_MS: 500,
    });
  });

  it("names each bad variable on one line", () => {
    expect(() => parseCliEnv({ TG_URL: "gateway:8088", TG_TIMEOUT_MS: "soon" })).toThrow(
      /^invalid environment: TG_URL="gateway:8088": must be an http\(s\) URL; TG_TIMEOUT_MS="soon": /,
    );
  });
});
