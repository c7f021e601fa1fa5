import { describe, expect, it } from "vitest";
import { CliError } from "../../src/errors.js";
import { collect, parseConfigParam, parseJson, parseJsonObject, parseKeyValue, parseToolArgument } from "../../src/options.js";

describe("collect", () => {
  it("accumulates repeated options in order", () => {
    expect(collect("b", collect("a"))).toEqual(["a", "b"]);
  });
});

describe("parseJson / parseJsonObject", () => {
  it("parses any JSON value for -v", () => {
    expect(parseJson("-v/--value", '"text"')).toBe("text");
    expect(parseJson("-v/--value", "[1,2]")).toEqual([1, 2]);
  });

  it("names the flag when the JSON is bad", () => {
    expect(() => parseJson("-v/--value", "{bad")).toThrow(CliError);
    expect(() => parseJson("-v/--value", "{bad")).toThrow(/^-v\/--value is not valid JSON: /);
  });

  it("accepts only an object for arguments and parameters", () => {
    expect(parseJsonObject("-a/--arguments", '{"topic": "cats"}')).toEqual({ topic: "cats" });
    for (const text of ["[]", "null", "3", '"x"']) {
      expect(() => parseJsonObject("-a/--arguments", text)).toThrow(/-a\/--arguments must be a JSON object/);
    }
  });
});

describe("parseConfigParam", () => {
  it("reads NAME and NAME:required", () => {
    expect(parseConfigParam("style")).toEqual({ name: "style", required: false });
    expect(parseConfigParam("style:required")).toEqual({ name: "style", required: true });
    expect(parseConfigParam("style:optional")).toEqual({ name: "style", required: false });
  });

  it("refuses anything else", () => {
    for (const spec of ["", ":required", "style:maybe", "a:required:x"]) {
      expect(() => parseConfigParam(spec)).toThrow(/must be NAME or NAME:required/);
    }
  });
});

describe("parseToolArgument", () => {
  it("reads NAME:TYPE:DESCRIPTION, keeping colons in the description", () => {
    expect(parseToolArgument("topic:string:what the joke is about: any noun")).toEqual({
      name: "topic",
      type: "string",
      description: "what the joke is about: any noun",
    });
    expect(parseToolArgument("n:integer:")).toEqual({ name: "n", type: "integer", description: "" });
  });

  it("refuses a missing part or an unknown type", () => {
    expect(() => parseToolArgument("topic:string")).toThrow(/must be NAME:TYPE:DESCRIPTION/);
    expect(() => parseToolArgument(":string:x")).toThrow(/must be NAME:TYPE:DESCRIPTION/);
    expect(() => parseToolArgument("topic:text:x")).toThrow(/type must be one of string, number, integer/);
  });
});

describe("parseKeyValue", () => {
  it("splits at the first '='", () => {
    expect(parseKeyValue("--config", "style=pun")).toEqual(["style", "pun"]);
    expect(parseKeyValue("--header", "X-Q=a=b")).toEqual(["X-Q", "a=b"]);
    expect(parseKeyValue("--config", "empty=")).toEqual(["empty", ""]);
  });

  it("refuses a missing key or '='", () => {
    expect(() => parseKeyValue("--config", "style")).toThrow("--config 'style' must be KEY=VALUE");
    expect(() => parseKeyValue("--header", "=v")).toThrow(/must be KEY=VALUE/);
  });
});
