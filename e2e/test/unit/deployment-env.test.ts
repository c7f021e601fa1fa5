import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { type BaseEnv, ServiceMetrics, createHttpServer, createLogger, parseEnv, pulsarSettings } from "@toolmesh/base";
import { ServicePorts, type ServiceWithPort } from "@toolmesh/schema";
import { AgentEnv } from "@toolmesh/agent/dist/env.js";
import { GatewayEnv } from "@toolmesh/api-gateway/dist/env.js";
import { ConfigEnv } from "@toolmesh/config/dist/env.js";
import { JokeEnv } from "@toolmesh/joke-service/dist/env.js";
import { McpServerEnv } from "@toolmesh/mcp-server/dist/env.js";
import { McpToolEnv } from "@toolmesh/mcp-tool/dist/env.js";
import { RegistryEnv } from "@toolmesh/tool-registry/dist/env.js";

// No Docker engine or cluster runs the deployment files in the tests, so this reads them and checks each
// service's environment against the env.ts that parses it: every variable set is one the service reads,
// its value passes the service's own schema, what must be there is, and the probes, ports, replicas and
// DATABASE_URL wiring are what docs/operations.md says.
const repo = resolve(import.meta.dirname, "../../..");
const read = (path: string) => readFileSync(resolve(repo, path), "utf8");
const services = Object.keys(ServicePorts).sort() as ServiceWithPort[];

const schemas = {
  agent: AgentEnv,
  "api-gateway": GatewayEnv,
  config: ConfigEnv,
  "joke-service": JokeEnv,
  "mcp-server": McpServerEnv,
  "mcp-tool": McpToolEnv,
  "tool-registry": RegistryEnv,
} satisfies Record<ServiceWithPort, unknown>;
/** The services that keep state, and so read DATABASE_URL (docs: "config, tool-registry, agent"). */
const stateful = ["agent", "config", "tool-registry"];
/** Secrets without which a service must not start in a deployment (docs: "compose and the manifests require it"). */
const requiredSecrets: Partial<Record<ServiceWithPort, string[]>> = {
  "api-gateway": ["GATEWAY_TOKEN"],
  "mcp-server": ["GATEWAY_TOKEN"],
  "tool-registry": ["REGISTRY_ADMIN_TOKEN"],
};
/** Read by the image (HTTP_HOST, the data folders) or by Node itself, not by env.ts. */
const notParsed = new Set(["NODE_ENV"]);

/** Names `env` sets that `service`'s env.ts does not read (zod would drop them without a word). */
function unknownNames(service: ServiceWithPort, env: Record<string, unknown>): string[] {
  return Object.keys(env).filter((name) => !(name in schemas[service].shape) && !notParsed.has(name));
}

/** Whether the service's HTTP server answers `path` (a route, not fastify's 404). */
async function serves(path: string): Promise<boolean> {
  const logger = createLogger("deployment-env", "silent");
  const app = createHttpServer({ logger, metrics: new ServiceMetrics("deployment-env"), readiness: new Map() });
  const response = await app.inject({ method: "GET", url: path });
  await app.close();
  return response.statusCode !== 404;
}

describe("the image (infra/docker/service.Dockerfile)", () => {
  const dockerfile = read("infra/docker/service.Dockerfile");
  const imageEnv = Object.fromEntries(
    [...dockerfile.match(/^ENV (NODE_ENV=.*)$/m)![1]!.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]),
  );

  it("sets only variables some service reads, and each service accepts them", () => {
    const anyService = new Set(services.flatMap((s) => Object.keys(schemas[s].shape)));
    for (const name of Object.keys(imageEnv)) if (!notParsed.has(name)) expect(anyService, name).toContain(name);
    for (const service of services) expect(() => parseEnv(schemas[service], imageEnv), service).not.toThrow();
  });

  it("builds each service from a package @toolmesh/<folder> whose main is the dist/main.js it runs", () => {
    expect(dockerfile).toMatch(/turbo@[\d.]+ prune "@toolmesh\/\$\{SERVICE\}"/);
    expect(dockerfile).toMatch(/^CMD \["node", "dist\/main.js"\]$/m);
    for (const service of services) {
      const pkg = JSON.parse(read(`services/${service}/package.json`)) as { name: string; main: string };
      expect(pkg.name).toBe(`@toolmesh/${service}`);
      expect(pkg.main).toBe("./dist/main.js");
    }
  });

  it("pins the pnpm and turbo of the repository", () => {
    const rootPkg = JSON.parse(read("package.json")) as { packageManager: string };
    const catalog = (parse(read("pnpm-workspace.yaml")) as { catalog: Record<string, string> }).catalog;
    expect(dockerfile).toContain(`npm install --global ${rootPkg.packageManager}`);
    expect(dockerfile).toContain(`npx --yes turbo@${catalog.turbo} prune`);
  });

  it("copies the dependency patches before pnpm fetch, which refuses to run without the files the lockfile names", () => {
    const rootPkg = JSON.parse(read("package.json")) as { pnpm?: { patchedDependencies?: Record<string, string> } };
    const patches = Object.values(rootPkg.pnpm?.patchedDependencies ?? {});
    for (const patch of patches) expect(() => read(patch), patch).not.toThrow();
    if (patches.length === 0) return;
    const copy = dockerfile.indexOf("COPY --from=prune /pruned/json/patches/ /app/patches/");
    expect(copy).toBeGreaterThan(-1);
    expect(copy).toBeLessThan(dockerfile.indexOf("RUN pnpm fetch"));
  });

  it("CI builds one image per service, and compose builds the same ones", () => {
    const ci = read(".github/workflows/ci.yml");
    const all = JSON.parse(ci.match(/all='(\[.*\])'/)![1]!) as string[];
    expect([...all].sort()).toEqual(services);
    for (const service of services) expect(ci, service).toMatch(new RegExp(`^ {12}${service}: services/${service}/\\*\\*$`, "m"));
  });
});

describe("compose (infra/compose/docker-compose.yml with .env.example)", () => {
  interface ComposeService {
    build?: { dockerfile: string; args: { SERVICE: string } };
    environment?: Record<string, string>;
    healthcheck?: { test: string[] };
    deploy?: { replicas: string };
    ports?: string[];
    depends_on?: Record<string, { condition: string }>;
  }
  const compose = parse(read("infra/compose/docker-compose.yml"), { merge: true }) as { services: Record<string, ComposeService> };
  const envExample = Object.fromEntries(
    read("infra/compose/.env.example")
      .split("\n")
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
  /** Compose's `${NAME:-default}` / `${NAME:?error}` / `${NAME}` interpolation, from `vars`. */
  const interpolate = (value: string, vars: Record<string, string>) =>
    value.replace(
      /\$\{(\w+)(?::([-?])([^}]*))?\}/g,
      (_, name: string, op?: string, rest?: string) => vars[name] || (op === "-" ? (rest ?? "") : ""),
    );
  const environmentOf = (service: ComposeService) =>
    Object.fromEntries(Object.entries(service.environment ?? {}).map(([name, value]) => [name, interpolate(String(value), envExample)]));
  const toolmesh = services.map((name) => [name, compose.services[name]!] as const);

  it("builds every service from the one Dockerfile, with SERVICE = its folder", () => {
    for (const [name, service] of toolmesh) {
      expect(service.build?.dockerfile, name).toBe("infra/docker/service.Dockerfile");
      expect(service.build?.args.SERVICE, name).toBe(name);
    }
  });

  it.each(services)("%s: every variable is one its env.ts reads, and the environment parses", (name) => {
    const env = environmentOf(compose.services[name]!);
    expect(unknownNames(name, env)).toEqual([]);
    const parsed = parseEnv(schemas[name], env) as { HTTP_PORT: number };
    expect(parsed.HTTP_PORT).toBe(ServicePorts[name]);
    for (const secret of requiredSecrets[name] ?? []) {
      expect(compose.services[name]!.environment?.[secret], secret).toMatch(/^\$\{\w+:\?.+\}$/);
    }
  });

  it("wires DATABASE_URL (the postgres service) into config, tool-registry and agent only", () => {
    for (const [name, service] of toolmesh) {
      const url = environmentOf(service).DATABASE_URL;
      if (stateful.includes(name)) {
        expect(url, name).toBe(`postgres://toolmesh:${envExample.POSTGRES_PASSWORD}@postgres:5432/toolmesh`);
        expect(service.depends_on?.postgres?.condition, name).toBe("service_healthy");
      } else expect(url, name).toBeUndefined();
    }
  });

  it("runs TOOLMESH_REPLICAS (2) of each, checked on /readyz, with one published port per replica", async () => {
    expect(envExample.TOOLMESH_REPLICAS).toBe("2");
    for (const [name, service] of toolmesh) {
      expect(interpolate(service.deploy!.replicas, {}), name).toBe("2");
      expect(service.healthcheck?.test.join(" "), name).toContain("/readyz");
      for (const mapping of service.ports ?? []) {
        const [, range, target] = interpolate(mapping, envExample).match(/^[\d.]+:(\d+-\d+):(\d+)$/)!;
        const [low, high] = range!.split("-").map(Number);
        expect(high! - low! + 1, name).toBe(2);
        expect(Number(target), name).toBe(ServicePorts[name]);
      }
    }
    expect(await serves("/readyz")).toBe(true);
  });
});

describe("Kubernetes (infra/k8s)", () => {
  interface EnvVar {
    name: string;
    value?: string;
    valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
  }
  interface Probe {
    httpGet?: { path: string; port: string | number };
  }
  interface Container {
    image: string;
    ports: { name: string; containerPort: number }[];
    env?: EnvVar[];
    envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string; optional?: boolean } }[];
    startupProbe?: Probe;
    livenessProbe?: Probe;
    readinessProbe?: Probe;
  }
  interface Manifest {
    kind: string;
    metadata: { name: string };
    data?: Record<string, string>;
    stringData?: Record<string, string>;
    spec: { replicas?: number; template: { spec: { containers: Container[] } } };
  }
  const manifests = (path: string) => parseAllDocuments(read(path)).map((doc) => doc.toJS() as Manifest);
  const kustomization = parse(read("infra/k8s/kustomization.yaml")) as { resources: string[]; images: { name: string }[] };
  const all = kustomization.resources.flatMap((file) => manifests(`infra/k8s/${file}`));
  const configMaps = new Map(all.filter((m) => m.kind === "ConfigMap").map((m) => [m.metadata.name, m.data ?? {}]));
  const secret = manifests("infra/k8s/secret.example.yaml")[0]!;
  const pulsarAuth = manifests("infra/k8s/pulsar-auth.example.yaml")[0]!;
  const deployment = (name: string) => all.find((m) => m.kind === "Deployment" && m.metadata.name === name)!;
  const container = (name: string) => deployment(name).spec.template.spec.containers[0]!;

  /**
   * What the container's process sees: its ConfigMaps and Secrets (in order), then `env` (Secret values from
   * the examples). The optional Secrets count as absent unless `withPulsarAuth` (the pulsar-auth example).
   */
  function environmentOf(c: Container, withPulsarAuth = false): Record<string, string> {
    const env: Record<string, string> = {};
    for (const from of c.envFrom ?? []) {
      if (from.configMapRef) Object.assign(env, configMaps.get(from.configMapRef.name) ?? {});
      if (from.secretRef?.name === "pulsar-auth" && withPulsarAuth) Object.assign(env, pulsarAuth.stringData);
    }
    for (const variable of c.env ?? []) {
      const ref = variable.valueFrom?.secretKeyRef;
      env[variable.name] = ref ? secret.stringData![ref.key]! : variable.value!;
    }
    return env;
  }

  it("has a Deployment per service, each with an image kustomization maps", () => {
    expect(
      all
        .filter((m) => m.kind === "Deployment")
        .map((d) => d.metadata.name)
        .sort(),
    ).toEqual(services);
    for (const service of services) expect(kustomization.images.map((i) => i.name)).toContain(container(service).image);
  });

  it.each(services)("%s: every variable is one its env.ts reads, and the environment parses", (name) => {
    const c = container(name);
    for (const from of c.envFrom ?? []) {
      if (from.configMapRef) expect([...configMaps.keys()], from.configMapRef.name).toContain(from.configMapRef.name);
      // Whole Secrets: every service's optional Pulsar credentials, and the ${env:NAME} credentials of mcp-tool's `mcp` entries.
      if (from.secretRef?.name === "pulsar-auth") expect(from.secretRef).toEqual({ name: "pulsar-auth", optional: true });
      else if (from.secretRef) expect([name, from.secretRef]).toEqual(["mcp-tool", { name: "mcp-tool-secrets", optional: true }]);
    }
    const env = environmentOf(c);
    expect(unknownNames(name, env)).toEqual([]);
    const parsed = parseEnv(schemas[name], env) as { HTTP_PORT: number };
    expect(parsed.HTTP_PORT).toBe(ServicePorts[name]);
    for (const variable of c.env ?? []) {
      const ref = variable.valueFrom?.secretKeyRef;
      if (ref) expect(Object.keys(secret.stringData!), `${name}: ${ref.key}`).toContain(ref.key);
    }
    for (const required of requiredSecrets[name] ?? []) {
      const ref = c.env?.find((v) => v.name === required)?.valueFrom?.secretKeyRef;
      expect(ref, `${name}: ${required}`).toEqual({ name: "toolmesh-secrets", key: required });
    }
  });

  it.each(services)(
    "%s: takes Pulsar credentials from the optional pulsar-auth Secret, whose example is a valid OAuth2 setting",
    (name) => {
      const c = container(name);
      expect(c.envFrom).toContainEqual({ secretRef: { name: "pulsar-auth", optional: true } });
      const env = environmentOf(c, true);
      expect(unknownNames(name, env)).toEqual([]);
      // What the service does at start with them: the key file (a data: URL) is read and checked there.
      const settings = pulsarSettings(parseEnv(schemas[name], env) as BaseEnv);
      expect(typeof settings.authToken).toBe("function");
    },
  );

  it("wires DATABASE_URL from toolmesh-secrets into config, tool-registry and agent only", () => {
    for (const service of services) {
      const ref = container(service).env?.find((v) => v.name === "DATABASE_URL")?.valueFrom?.secretKeyRef;
      if (stateful.includes(service)) expect(ref, service).toEqual({ name: "toolmesh-secrets", key: "DATABASE_URL" });
      else expect(environmentOf(container(service)).DATABASE_URL, service).toBeUndefined();
    }
  });

  it("runs 2 replicas of every service", () => {
    for (const service of services) expect(deployment(service).spec.replicas, service).toBe(2);
  });

  it("probes routes the services serve, on their HTTP port", async () => {
    for (const service of services) {
      const c = container(service);
      const http = c.ports.find((p) => p.name === "http")!;
      expect(http.containerPort, service).toBe(ServicePorts[service]);
      const probes = { startup: c.startupProbe, liveness: c.livenessProbe, readiness: c.readinessProbe };
      expect(probes.startup?.httpGet?.path, service).toBe("/healthz");
      expect(probes.liveness?.httpGet?.path, service).toBe("/healthz");
      expect(probes.readiness?.httpGet?.path, service).toBe("/readyz");
      for (const probe of Object.values(probes)) expect(probe?.httpGet?.port, service).toBe("http");
    }
    expect(await serves("/healthz")).toBe(true);
    expect(await serves("/readyz")).toBe(true);
    expect(await serves("/healthzz")).toBe(false);
  });
});
