import { ArgumentType, type ToolArgument } from "@toolmesh/schema";
import { CliError } from "./errors.js";

/** Commander collector for options that may repeat (`--argument a --argument b`). */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Any JSON value given on the command line (`-v`). */
export function parseJson(flag: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CliError(`${flag} is not valid JSON: ${(err as Error).message}`);
  }
}

/** A JSON object given on the command line (`-a`, `-P`). */
export function parseJsonObject(flag: string, text: string): Record<string, unknown> {
  const value = parseJson(flag, text);
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new CliError(`${flag} must be a JSON object, e.g. '{"topic": "cats"}'`);
  }
  return value as Record<string, unknown>;
}

export interface ConfigParamSpec {
  name: string;
  required: boolean;
}

/** `NAME` or `NAME:required` (or `NAME:optional`). */
export function parseConfigParam(spec: string): ConfigParamSpec {
  const [name = "", flag, ...rest] = spec.split(":");
  if (!name || rest.length > 0 || (flag !== undefined && flag !== "required" && flag !== "optional")) {
    throw new CliError(`--config-param '${spec}' must be NAME or NAME:required`);
  }
  return { name, required: flag === "required" };
}

/** `NAME:TYPE:DESCRIPTION`; the description may itself contain colons. */
export function parseToolArgument(spec: string): Pick<ToolArgument, "name" | "type" | "description"> {
  const first = spec.indexOf(":");
  const second = first < 0 ? -1 : spec.indexOf(":", first + 1);
  if (first <= 0 || second < 0) throw new CliError(`--argument '${spec}' must be NAME:TYPE:DESCRIPTION`);
  const name = spec.slice(0, first);
  const type = ArgumentType.safeParse(spec.slice(first + 1, second));
  if (!type.success) {
    throw new CliError(`--argument '${spec}': type must be one of ${ArgumentType.options.join(", ")}`);
  }
  return { name, type: type.data, description: spec.slice(second + 1) };
}

/** `KEY=VALUE`; the value may contain '=' and may be empty. */
export function parseKeyValue(flag: string, spec: string): [string, string] {
  const at = spec.indexOf("=");
  if (at <= 0) throw new CliError(`${flag} '${spec}' must be KEY=VALUE`);
  return [spec.slice(0, at), spec.slice(at + 1)];
}

/** A whole number above zero given on the command line (a revision, a limit). */
export function positiveInt(flag: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new CliError(`${flag} must be a whole number above 0, not '${text}'`);
  return value;
}
