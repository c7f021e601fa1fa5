#!/usr/bin/env node
// Usage: node scripts/deploy/dev-deps.mjs <service> <deployed folder>
// Prints "none" when the deployed node_modules holds no development dependency, else the names found
// (exit 1). A name counts as a development dependency when the service, the repository root or one of
// the workspace packages the service runs on lists it in devDependencies — unless something that really
// runs needs it: a production dependency of that closure, or a dependency of any other package that is
// deployed (pino, for example, is a devDependency of several services and a dependency of @toolmesh/base).
// The compiler, test runner and linter are always looked for, whoever pulled them in.
import { readFileSync, readdirSync, lstatSync, existsSync } from "node:fs";
import { join, resolve } from "node:path";

const [service, deployDir] = process.argv.slice(2);
if (!service || !deployDir) {
  console.error("usage: dev-deps.mjs <service> <deployed folder>");
  process.exit(2);
}
const repo = resolve(import.meta.dirname, "../..");
const readJson = (file) => JSON.parse(readFileSync(file, "utf8"));

// Workspace packages by name (the globs in pnpm-workspace.yaml are all "dir/*" or "dir").
const workspace = new Map();
for (const dir of ["packages", "services"]) {
  for (const entry of readdirSync(join(repo, dir))) {
    const file = join(repo, dir, entry, "package.json");
    if (existsSync(file)) workspace.set(readJson(file).name, readJson(file));
  }
}
const own = workspace.get(`@toolmesh/${service}`);
if (!own) {
  console.error(`dev-deps: no workspace package @toolmesh/${service}`);
  process.exit(2);
}

// The production closure of workspace packages, and the external names it depends on.
const closure = new Set();
const needed = new Set();
const visit = (pkg) => {
  if (closure.has(pkg.name)) return;
  closure.add(pkg.name);
  for (const name of Object.keys(pkg.dependencies ?? {})) {
    if (workspace.has(name)) visit(workspace.get(name));
    else needed.add(name);
  }
};
visit(own);

const TOOLING = ["typescript", "vitest", "eslint", "turbo", "tsx", "vite", "@toolmesh/test-support"];
const suspects = new Set(TOOLING);
for (const pkg of [readJson(join(repo, "package.json")), ...[...closure].map((name) => workspace.get(name))]) {
  for (const name of Object.keys(pkg.devDependencies ?? {})) if (!needed.has(name)) suspects.add(name);
}

// Every package physically present in the deployed virtual store (.pnpm/<id>/node_modules/<name> is the
// package itself; its siblings there are symlinks to its dependencies).
const store = join(deployDir, "node_modules", ".pnpm");
const present = new Map(); // name -> package.json
for (const id of existsSync(store) ? readdirSync(store) : []) {
  const modules = join(store, id, "node_modules");
  if (!existsSync(modules)) continue;
  for (const entry of readdirSync(modules)) {
    const dirs = entry.startsWith("@") ? readdirSync(join(modules, entry)).map((sub) => join(entry, sub)) : [entry];
    for (const rel of dirs) {
      const dir = join(modules, rel);
      if (lstatSync(dir).isSymbolicLink() || !existsSync(join(dir, "package.json"))) continue;
      const pkg = readJson(join(dir, "package.json"));
      present.set(pkg.name, pkg);
    }
  }
}
const wanted = new Set();
for (const [name, pkg] of present) {
  if (suspects.has(name)) continue;
  for (const field of ["dependencies", "optionalDependencies", "peerDependencies"]) {
    for (const dep of Object.keys(pkg[field] ?? {})) wanted.add(dep);
  }
}

const leaked = [...suspects].filter((name) => present.has(name) && (TOOLING.includes(name) || !wanted.has(name))).sort();
console.log(leaked.length === 0 ? "none" : leaked.join(","));
process.exit(leaked.length === 0 ? 0 : 1);
