// Its own entry point (`@toolmesh/schema/tool-schema-validator`): only the services that check tool schemas load Ajv.
import { Ajv } from "ajv";
import addFormatsModule from "ajv-formats";
import { RE2JS } from "re2js";

// CommonJS default export: Node hands us the function itself, whatever the types say.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * A tool's `pattern` and `patternProperties` come from whoever published the tool (an announcement, a
 * manifest URL, config). With JavaScript's backtracking engine a pattern like `^(a+)+$` takes exponential
 * time on a short argument and freezes the process that checks it. RE2's engine matches in linear time;
 * patterns it cannot run (lookaround, backreferences) fail to compile, so the tool is refused up front.
 * JavaScript escapes RE2 writes differently (`\u00e9`, `\u{1F600}`) are translated first.
 */
export const linearTimeRegExp = Object.assign(
  (pattern: string): { test(input: string): boolean } => RE2JS.compile(RE2JS.translateRegExp(pattern)),
  {
    // What Ajv's standalone code generation would import (toolmesh compiles at run time only).
    code: 'require("re2js").RE2JS.compile',
  },
);

/**
 * The JSON Schema validator for tools' parameter schemas (the registry, the agent and the MCP face check
 * them alike): draft 2020-12-compatible Ajv, non-strict (tools carry keywords Ajv does not know), the
 * standard formats, and linear-time patterns.
 */
export function toolSchemaValidator(options: { allErrors: boolean }): Ajv {
  return addFormats(new Ajv({ strict: false, allErrors: options.allErrors, code: { regExp: linearTimeRegExp } }));
}
