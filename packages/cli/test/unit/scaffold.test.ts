import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ServicePorts } from "@toolmesh/schema";
import { FIRST_SCAFFOLD_PORT, scaffoldToolService, takenPortsAndTopics, workspaceRoot } from "../../src/scaffold.js";

// `tg new-tool-service`'s files and its choice of port and topic. That the package builds, runs and joins
// the catalog is e2e/test/scaffold.test.ts.
let servicesDir: string;
beforeEach(() => {
  servicesDir = mkdtempSync(join(tmpdir(), "tg-scaffold-"));
});
afterEach(() => rmSync(servicesDir, { recursive: true, force: true }));

const read = (...path: string[]) => readFileSync(join(servicesDir, ...path), "utf8");

describe("scaffoldToolService", () => {
  it("writes the package from the templates with every placeholder filled", () => {
    const made = scaffoldToolService({ name: "rain-gauge", servicesDir });
    expect(made).toMatchObject({ port: FIRST_SCAFFOLD_PORT, topic: "rain-gauge", tool: "rain-gauge" });
    expect(made.files).toEqual([
      "package.json",
      "src/app.ts",
      "src/env.ts",
      "src/main.ts",
      "src/tool.ts",
      "test/unit/rain-gauge.test.ts",
      "tsconfig.build.json",
      "tsconfig.json",
      "vitest.config.ts",
    ]);
    for (const file of made.files) expect(read("rain-gauge", file)).not.toMatch(/\{\{\w+\}\}/);
    expect(JSON.parse(read("rain-gauge", "package.json"))).toMatchObject({
      name: "@toolmesh/rain-gauge",
      scripts: { start: "node dist/main.js" },
    });
    expect(read("rain-gauge", "src/env.ts")).toContain('RAIN_GAUGE_TOPIC: topicNameSchema.default("rain-gauge")');
    expect(read("rain-gauge", "src/app.ts")).toContain("export async function buildRainGauge(runtime: ServiceRuntime, env: RainGaugeEnv)");
    expect(read("rain-gauge", "src/tool.ts")).toContain("export const rainGaugeTool = defineTool({");
  });

  it("takes the next port and refuses a topic another package's env.ts already uses", () => {
    scaffoldToolService({ name: "first", servicesDir });
    expect(scaffoldToolService({ name: "second", servicesDir }).port).toBe(FIRST_SCAFFOLD_PORT + 1);
    expect(() => scaffoldToolService({ name: "third", servicesDir, topic: "first" })).toThrow(
      "topic 'first' is taken by first: give another with --topic",
    );
    expect(() => scaffoldToolService({ name: "third", servicesDir, port: FIRST_SCAFFOLD_PORT })).toThrow(
      `port ${FIRST_SCAFFOLD_PORT} is taken by first`,
    );
    expect(() => scaffoldToolService({ name: "third", servicesDir, port: ServicePorts.config })).toThrow("is taken by config");
    expect(() => scaffoldToolService({ name: "config", servicesDir })).toThrow("topic 'config' is taken by config");
    expect(existsSync(join(servicesDir, "third"))).toBe(false);
  });

  it("reads the repo's own services' ports and topics", () => {
    const { ports, topics } = takenPortsAndTopics(join(workspaceRoot(process.cwd()), "services"));
    expect(ports.get(ServicePorts["joke-service"])).toBe("joke-service");
    expect(topics.get("joke")).toBe("joke-service");
    expect(topics.get("mcp-tool")).toBeDefined();
  });

  it("refuses a bad name and an existing folder", () => {
    expect(() => scaffoldToolService({ name: "Weather", servicesDir })).toThrow("'Weather' is not a service name");
    expect(() => scaffoldToolService({ name: "we--ather", servicesDir })).toThrow("is not a service name");
    mkdirSync(join(servicesDir, "taken"));
    writeFileSync(join(servicesDir, "taken", "keep"), "");
    expect(() => scaffoldToolService({ name: "taken", servicesDir })).toThrow("already exists");
    expect(read("taken", "keep")).toBe("");
  });
});
