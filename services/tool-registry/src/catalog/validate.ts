import { toolSchemaValidator } from "@toolmesh/schema/tool-schema-validator";
import { ManifestEntry, describeIssues } from "@toolmesh/schema";
import { canonicalJson, sha256 } from "./hashing.js";

export interface EntryProblem {
  index: number;
  tool: string;
  reason: string;
}

export interface ValidatedManifest {
  entries: ManifestEntry[];
  problems: EntryProblem[];
}

// Standard formats (uri, date-time, email, ...) are checked, not ignored with a console warning; patterns
// run in linear time, and one RE2 cannot run (lookaround, backreferences) makes the schema not compile.
const ajv = toolSchemaValidator({ allErrors: false });
/** Schemas already checked, by hash: 10k tools usually share a handful of schemas. */
const schemaVerdicts = new Map<string, string | null>();

/** Why a parameters_schema is not a usable JSON Schema for an object of arguments, or null. */
export function schemaProblem(schema: Record<string, unknown>): string | null {
  const key = sha256(canonicalJson(schema));
  const cached = schemaVerdicts.get(key);
  if (cached !== undefined) return cached;
  let verdict: string | null = null;
  if (!ajv.validateSchema(schema)) verdict = `parameters_schema is not a valid JSON Schema: ${ajv.errorsText(ajv.errors)}`;
  else if (schema.type !== undefined && schema.type !== "object")
    verdict = `parameters_schema must describe an object, not '${String(schema.type)}'`;
  else {
    try {
      ajv.compile(schema);
    } catch (err) {
      verdict = `parameters_schema does not compile: ${(err as Error).message}`;
    }
  }
  if (schemaVerdicts.size > 50_000) schemaVerdicts.clear();
  schemaVerdicts.set(key, verdict);
  return verdict;
}

/**
 * Validates a manifest (an array of entries) item by item: a bad entry is reported and left out, the
 * good ones kept. A body that is not an array at all is a problem of the whole manifest.
 */
export function validateManifest(body: unknown): ValidatedManifest {
  if (!Array.isArray(body)) throw new Error("manifest must be a JSON array of tool entries");
  const entries: ManifestEntry[] = [];
  const problems: EntryProblem[] = [];
  body.forEach((raw, index) => {
    const tool = typeof raw?.name === "string" ? raw.name : `#${index}`;
    const parsed = ManifestEntry.safeParse(raw);
    if (!parsed.success) {
      problems.push({ index, tool, reason: describeIssues(parsed.error) });
      return;
    }
    const reason = schemaProblem(parsed.data.parameters_schema);
    if (reason) problems.push({ index, tool, reason });
    else entries.push(parsed.data);
  });
  return { entries, problems };
}
