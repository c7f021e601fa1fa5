import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ServicePorts, type ServiceWithPort } from "../../src/index.js";

// The port table is defined once in TypeScript; YAML cannot import it, so this checks that compose and
// the Kubernetes manifests say the same numbers for the same services.
const repo = new URL("../../../../", import.meta.url);
const read = (path: string) => readFileSync(new URL(path, repo), "utf8");
const services = Object.keys(ServicePorts) as ServiceWithPort[];

describe("ServicePorts", () => {
  it("gives every service its own port", () => {
    expect(new Set(Object.values(ServicePorts)).size).toBe(services.length);
  });

  it.each(services)("infra/k8s/%s.yaml uses the table's port everywhere it names one", (service) => {
    const manifest = read(`infra/k8s/${service}.yaml`);
    const named = [
      ...manifest.matchAll(/containerPort: (\d+)/g),
      ...manifest.matchAll(/prometheus\.io\/port: "(\d+)"/g),
      ...manifest.matchAll(/name: HTTP_PORT\s+value: "(\d+)"/g),
      ...manifest.matchAll(/\{name: http, port: (\d+)/g),
    ].map((m) => Number(m[1]));
    expect(named.length).toBeGreaterThanOrEqual(3);
    expect(new Set(named)).toEqual(new Set([ServicePorts[service]]));
  });

  it("infra/compose gives each service built from the template the table's HTTP_PORT", () => {
    const compose = read("infra/compose/docker-compose.yml");
    const blocks = [...compose.matchAll(/SERVICE: ([a-z-]+)[\s\S]*?HTTP_PORT: "(\d+)"/g)].map((m) => [m[1], Number(m[2])]);
    expect(blocks.map(([service]) => service).sort()).toEqual([...services].sort());
    for (const [service, port] of blocks) expect(port, String(service)).toBe(ServicePorts[service as ServiceWithPort]);
  });
});
