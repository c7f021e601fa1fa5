import { describe, expect, it } from "vitest";
import { linearTimeRegExp, toolSchemaValidator } from "../../src/tool-schema-validator.js";

// A backtracking engine needs about 2^n steps for `^(a+)+$` on n a's and a mismatch at the end: at 40 a's
// that is hours (25 s at 29 on this machine), so a native RegExp here would time the test out.
const EVIL = "^(a+)+$";
const ATTACK = `${"a".repeat(40)}!`;

describe("toolSchemaValidator", () => {
  const ajv = toolSchemaValidator({ allErrors: true });

  it("checks a peer's catastrophic pattern in linear time, in `pattern` and in `patternProperties`", () => {
    const viaPattern = ajv.compile({ type: "object", properties: { s: { type: "string", pattern: EVIL } } });
    expect(viaPattern({ s: ATTACK })).toBe(false);
    expect(viaPattern({ s: "aaaa" })).toBe(true);
    const viaKeys = ajv.compile({ type: "object", patternProperties: { [EVIL]: { type: "number" } } });
    expect(viaKeys({ [ATTACK]: "not checked: the key does not match" })).toBe(true);
    expect(viaKeys({ aaaa: "a string where a number must be" })).toBe(false);
  });

  it("runs the patterns tools use: classes, counts, Unicode properties, JavaScript's \\u escapes", () => {
    const check = (pattern: string, good: string, bad: string) => {
      const validate = ajv.compile({ type: "string", pattern });
      expect([validate(good), validate(bad)], pattern).toEqual([true, false]);
    };
    check("^[a-z0-9_-]{1,64}$", "tell-joke_2", "Tell Joke");
    check("^\\d{4}-\\d{2}-\\d{2}$", "2026-12-04", "04/12/2026");
    check("^\\p{L}+$", "héllo", "h3llo");
    check("^[\\u00e0-\\u00ff]+$", "éà", "ea");
    check("^\\S+@\\S+\\.\\S+$", "a@b.c", "a b@c");
    check("^\\/api\\/", "/api/x", "/web/x");
  });

  it("refuses to compile a pattern linear time cannot run (lookaround, backreferences), naming it", () => {
    expect(() => ajv.compile({ type: "string", pattern: "^(?=.*\\d).+$" })).toThrow(/invalid or unsupported Perl syntax: `\(\?=`/);
    expect(() => ajv.compile({ type: "string", pattern: "^(a)\\1$" })).toThrow(/invalid escape sequence: `\\1`/);
  });

  it("knows the standard formats", () => {
    const validate = ajv.compile({ type: "string", format: "date-time" });
    expect([validate("2026-12-04T12:00:00Z"), validate("yesterday")]).toEqual([true, false]);
  });
});

describe("linearTimeRegExp", () => {
  it("searches anywhere in the input, as JSON Schema's `pattern` does (not anchored)", () => {
    expect(linearTimeRegExp("b+").test("abba")).toBe(true);
    expect(linearTimeRegExp("^b").test("abba")).toBe(false);
  });
});
