import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ServiceName, ServicePorts } from "@toolmesh/schema";
import { CliError } from "./errors.js";

/** The template of a tool service package: files ending `.tmpl`, with `{{name}}`-style placeholders. */
const TEMPLATE_DIR = fileURLToPath(new URL("../templates/tool-service", import.meta.url));
/** Scaffolded services take ports from here up: above the built-in services' (ServicePorts). */
export const FIRST_SCAFFOLD_PORT = 8710;
const NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

export interface ScaffoldOptions {
  name: string;
  /** The folder of service packages (a workspace's `services`). */
  servicesDir: string;
  port?: number;
  topic?: string;
}

export interface Scaffolded {
  dir: string;
  files: string[];
  port: number;
  topic: string;
  tool: string;
}

/** What the other service packages already use: their env.ts defaults, and the built-in services'. */
export function takenPortsAndTopics(servicesDir: string): { ports: Map<number, string>; topics: Map<string, string> } {
  const ports = new Map<number, string>(Object.entries(ServicePorts).map(([service, port]) => [port, service]));
  const topics = new Map<string, string>(Object.values(ServiceName).map((name) => [name, name]));
  for (const service of existsSync(servicesDir) ? readdirSync(servicesDir) : []) {
    const envFile = join(servicesDir, service, "src", "env.ts");
    if (!existsSync(envFile)) continue;
    const text = readFileSync(envFile, "utf8");
    for (const [, port] of text.matchAll(/HTTP_PORT:[^\n]*\.default\((\d+)\)/g)) ports.set(Number(port), service);
    for (const [, topic] of text.matchAll(/_TOPIC:[^\n]*\.default\("([^"]+)"\)/g)) topics.set(topic!, service);
  }
  return { ports, topics };
}

const pascal = (name: string) =>
  name
    .split("-")
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join("");

function render(text: string, values: Record<string, string>): string {
  return text.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => values[key] ?? whole);
}

function templateFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? templateFiles(join(dir, entry.name)) : entry.name.endsWith(".tmpl") ? [join(dir, entry.name)] : [],
  );
}

/**
 * Writes a tool service package `servicesDir/NAME` from the template: env, app (build<Name>), main
 * (startService), one tool made with defineTool, and a unit test. Its port and topic are the first ones no
 * other service package uses (or the given ones, checked the same way).
 */
export function scaffoldToolService(options: ScaffoldOptions): Scaffolded {
  const { name, servicesDir } = options;
  if (!NAME.test(name) || name.length > 40)
    throw new CliError(`'${name}' is not a service name: lower-case letters and digits in words joined by '-', at most 40`);
  const dir = resolve(servicesDir, name);
  if (existsSync(dir)) throw new CliError(`${dir} already exists`);
  const { ports, topics } = takenPortsAndTopics(servicesDir);
  let port = options.port ?? FIRST_SCAFFOLD_PORT;
  if (options.port !== undefined && ports.has(port)) throw new CliError(`port ${port} is taken by ${ports.get(port)}`);
  while (ports.has(port)) port += 1;
  const topic = options.topic ?? name;
  if (topics.has(topic)) throw new CliError(`topic '${topic}' is taken by ${topics.get(topic)}: give another with --topic`);
  const Name = pascal(name);
  const values = {
    name,
    Name,
    camel: Name[0]!.toLowerCase() + Name.slice(1),
    NAME: name.replaceAll("-", "_").toUpperCase(),
    port: String(port),
    topic,
    tool: name,
  };
  const files = templateFiles(TEMPLATE_DIR).map((template) => {
    const target = join(dir, render(relative(TEMPLATE_DIR, template), values).replace(/\.tmpl$/, ""));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, render(readFileSync(template, "utf8"), values));
    return relative(dir, target);
  });
  return { dir, files: files.sort(), port, topic, tool: name };
}

/** The workspace root (the folder with pnpm-workspace.yaml) at or above `from`. */
export function workspaceRoot(from: string): string {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "pnpm-workspace.yaml"))) return dir;
    if (dirname(dir) === dir)
      throw new CliError(`no pnpm-workspace.yaml at or above ${from}: run this in a toolmesh checkout, or give --dir`);
  }
}
