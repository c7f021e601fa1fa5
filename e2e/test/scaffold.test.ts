import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CatalogRevision } from "@toolmesh/schema";
import { REPO_ROOT, waitFor } from "@toolmesh/test-support";
import { System } from "./system.js";

// Issue 16 item 9: `tg new-tool-service weather` makes a package that, built and started with nothing else
// changed, announces its tool into the catalog, where `tg invoke-tool` calls it. The package is made in a
// temp folder laid out like the repo (services/ beside tsconfig.base.json), so the repo is left as it is.
const run = promisify(execFile);
const tmp = mkdtempSync(join(tmpdir(), "toolmesh-scaffold-"));
const servicesDir = join(tmp, "services");
const dir = join(servicesDir, "weather");
const system = new System();
let made = "";

/** What `pnpm install` does for the new package: its dependencies linked (from joke-service, which has the same). */
function linkDependencies(packageDir: string): void {
  const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as Record<string, Record<string, string>>;
  const from = resolve(REPO_ROOT, "services/joke-service/node_modules");
  for (const dependency of Object.keys({ ...manifest.dependencies, ...manifest.devDependencies })) {
    const link = join(packageDir, "node_modules", dependency);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(realpathSync(join(from, dependency)), link, "dir");
  }
}

async function ok(...args: string[]): Promise<string> {
  const r = await system.tg(...args);
  expect(r.stderr, `tg ${args.join(" ")}: ${r.stderr}`).toBe("");
  expect(r.code).toBe(0);
  return r.stdout.trim();
}

beforeAll(async () => {
  mkdirSync(servicesDir);
  symlinkSync(resolve(REPO_ROOT, "tsconfig.base.json"), join(tmp, "tsconfig.base.json"));
  made = (
    await run(process.execPath, [resolve(REPO_ROOT, "packages/cli/dist/main.js"), "new-tool-service", "weather", "--dir", servicesDir])
  ).stdout;
  linkDependencies(dir);
  await run(process.execPath, [join(dir, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], { cwd: dir });
  await system.start([["config"], ["tool-registry", { REGISTRY_REFRESH_INTERVAL_MS: "0" }], ["mcp-server"], ["api-gateway"]]);
  // As `npm run up` starts it: no settings but the broker's.
  await system.add("weather", "weather", {}, dir);
}, 180_000);

afterAll(async () => {
  await system.stop();
  rmSync(tmp, { recursive: true, force: true });
});

describe("tg new-tool-service", () => {
  it("makes a package laid out like the built-in services, on a port and topic nobody else uses", () => {
    expect(made).toMatch(/^created .*weather: tool 'weather' on topic 'weather', HTTP port 8710$/m);
    for (const file of [
      "package.json",
      "tsconfig.json",
      "tsconfig.build.json",
      "vitest.config.ts",
      "src/env.ts",
      "src/app.ts",
      "src/main.ts",
      "src/tool.ts",
      "test/unit/weather.test.ts",
    ]) {
      expect(made).toContain(`\n  ${file}\n`);
    }
    expect(readFileSync(join(dir, "src/app.ts"), "utf8")).toContain(
      "export async function buildWeather(runtime: ServiceRuntime, env: WeatherEnv)",
    );
    expect(readFileSync(join(dir, "src/main.ts"), "utf8")).toContain('await startService("weather", loadEnv, buildWeather);');
  });

  it("puts the new tool in the catalog by its announcement, with the schema made from zod", async () => {
    const revision = await waitFor(
      async () => {
        const r = await system.tg("show-catalog", "--json");
        if (r.code !== 0) return undefined;
        const current = CatalogRevision.parse(JSON.parse(r.stdout));
        return current.tools.some((t) => t.name === "weather") ? current : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500, description: "the weather tool in the catalog" },
    );
    expect(revision.tools.find((t) => t.name === "weather")).toMatchObject({
      source: "announce:weather",
      tool_id: "weather.weather",
      parameters_schema: {
        type: "object",
        properties: { name: { type: "string", minLength: 1, description: "Who to greet" } },
        required: ["name"],
      },
      binding: { kind: "tool-service", config: {} },
    });
  });

  it("is called by tg invoke-tool, which refuses arguments that do not fit its schema", async () => {
    // The MCP endpoint learns of the new revision by the registry's push: wait until it offers the tool.
    await waitFor(async () => (await system.tg("invoke-tool", "-n", "weather", "-a", '{"name": "Ada"}')).code === 0, {
      timeoutMs: 30_000,
      intervalMs: 500,
      description: "the MCP endpoint offering the weather tool",
    });
    expect(await ok("invoke-tool", "-n", "weather", "-a", '{"name": "Ada"}')).toBe("Hello, Ada, from weather!");
    const bad = await system.tg("invoke-tool", "-n", "weather", "-a", '{"name": 7}');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^tg: tool 'weather': .*name/);
  });
});
