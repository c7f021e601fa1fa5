import type { ValidateFunction } from "ajv";
import type { CatalogTool } from "@toolmesh/schema";
import { toolSchemaValidator } from "@toolmesh/schema/tool-schema-validator";

const MAX_COMPILED = 10_000;

/** Checks tools/call arguments against the tool's parameters schema; compiled once per tool content. */
export class ArgumentValidator {
  private readonly ajv = toolSchemaValidator({ allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  /** Undefined when the arguments are valid, else a readable list of what is wrong. */
  problems(tool: CatalogTool, args: Record<string, unknown>): string | undefined {
    let validate = this.compiled.get(tool.content_hash);
    if (!validate) {
      if (this.compiled.size >= MAX_COMPILED) this.compiled.clear();
      validate = this.ajv.compile(tool.parameters_schema);
      this.compiled.set(tool.content_hash, validate);
    }
    if (validate(args)) return undefined;
    return (validate.errors ?? []).map((e) => `${e.instancePath || "(arguments)"} ${e.message ?? "is invalid"}`).join("; ");
  }
}
