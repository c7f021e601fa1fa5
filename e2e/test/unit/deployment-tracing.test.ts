import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { BaseEnv, parseEnv, tracingSettings } from "@toolmesh/base";
import { ServicePorts } from "@toolmesh/schema";

// No Docker engine or cluster runs the deployment files in the tests, so this reads them and checks the
// tracing pieces against each other and against the code that reads the variables (tracingSettings):
// off by default, and with tracing turned on every toolmesh service sends its spans to the collector
// that is there to receive them.
const repo = resolve(import.meta.dirname, "../../..");
const read = (path: string) => readFileSync(resolve(repo, path), "utf8");
const yamlFile = (path: string) => parse(read(path), { merge: true }) as Record<string, unknown>;
const services = Object.keys(ServicePorts).sort();
const COLLECTOR_CONFIG = "infra/k8s/tracing/otel-collector-config.yaml";

interface CollectorConfig {
  receivers: { otlp: { protocols: { http?: { endpoint: string }; grpc?: unknown } } };
  processors?: Record<string, unknown>;
  exporters: Record<string, unknown>;
  service: { pipelines: { traces: { receivers: string[]; processors?: string[]; exporters: string[] } } };
}
const collector = yamlFile(COLLECTOR_CONFIG) as unknown as CollectorConfig;
/** The port the collector takes OTLP/HTTP on. */
const collectorPort = Number(collector.receivers.otlp.protocols.http?.endpoint.split(":").pop());

/** What tracing a service does with these variables, as the code decides at start. */
function tracingOf(service: string, env: Record<string, string | undefined>) {
  return tracingSettings(parseEnv(BaseEnv, { ...env, HTTP_PORT: "8700" }), service);
}

describe("the collector's config (shared by compose and Kubernetes)", () => {
  it("takes OTLP over HTTP on 4318 (the services' only protocol) into a traces pipeline of defined components", () => {
    expect(collector.receivers.otlp.protocols.http?.endpoint).toBe("0.0.0.0:4318");
    const traces = collector.service.pipelines.traces;
    expect(traces.receivers).toEqual(["otlp"]);
    expect(traces.exporters).toContain("debug");
    for (const name of traces.processors ?? []) expect(collector.processors, name).toHaveProperty([name]);
    for (const name of traces.exporters) expect(collector.exporters, name).toHaveProperty([name]);
  });
});

describe("compose (infra/compose/docker-compose.yml)", () => {
  interface ComposeService {
    build?: { args: { SERVICE: string } };
    image: string;
    profiles?: string[];
    command?: string[];
    volumes?: string[];
    environment?: Record<string, string>;
  }
  const compose = yamlFile("infra/compose/docker-compose.yml") as { services: Record<string, ComposeService> };
  const envExample = Object.fromEntries(
    read("infra/compose/.env.example")
      .split("\n")
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
  const toolmesh = Object.entries(compose.services).filter(([, service]) => service.build);
  /** Compose's `${NAME:-default}` / `${NAME:?error}` / `${NAME}` interpolation, from `vars`. */
  const interpolate = (value: string, vars: Record<string, string>) =>
    value.replace(
      /\$\{(\w+)(?::([-?])([^}]*))?\}/g,
      (_, name: string, op?: string, rest?: string) => vars[name] || (op === "-" ? (rest ?? "") : ""),
    );
  const environmentOf = (service: ComposeService, vars: Record<string, string>) =>
    Object.fromEntries(Object.entries(service.environment ?? {}).map(([name, value]) => [name, interpolate(String(value), vars)]));

  const otel = compose.services["otel-collector"]!;
  const documented = read("infra/compose/.env.example").match(/^#\s+OTEL_EXPORTER_OTLP_ENDPOINT=(\S+)$/m)?.[1];

  it("runs every toolmesh service", () => {
    expect(toolmesh.map(([name]) => name).sort()).toEqual(services);
  });

  it("traces nothing with .env.example as it is", () => {
    for (const [name, service] of toolmesh) expect(tracingOf(name, environmentOf(service, envExample)), name).toBeUndefined();
  });

  it("with the documented settings, every service sends its spans to the otel-collector service, head-sampled", () => {
    expect(documented).toBe(`http://otel-collector:${collectorPort}`);
    const traced = {
      ...envExample,
      OTEL_EXPORTER_OTLP_ENDPOINT: documented!,
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.1",
    };
    for (const [name, service] of toolmesh) {
      const env = environmentOf(service, traced);
      expect(tracingOf(name, env), name).toEqual({
        serviceName: name,
        exporter: "otlp",
        protocol: "http/protobuf",
        url: `http://otel-collector:${collectorPort}/v1/traces`,
        sampler: "parentbased_traceidratio",
        samplerArg: 0.1,
        propagators: ["tracecontext", "baggage"],
      });
      expect(env, name).toMatchObject({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.1" });
    }
  });

  it("starts the collector only with the tracing profile, on the shared config file", () => {
    expect(otel.profiles).toEqual(["tracing"]);
    const [source, target] = (otel.volumes ?? [])[0]!.split(":");
    expect(resolve(repo, "infra/compose", source!)).toBe(resolve(repo, COLLECTOR_CONFIG));
    expect(otel.command).toEqual([`--config=${target}`]);
  });
});

describe("Kubernetes (infra/k8s, component tracing/)", () => {
  interface Container {
    image: string;
    args?: string[];
    envFrom?: { configMapRef?: { name: string } }[];
    ports?: { name: string; containerPort: number }[];
    volumeMounts?: { name: string; mountPath: string }[];
  }
  interface Manifest {
    kind: string;
    metadata: { name: string };
    data?: Record<string, string>;
    spec: {
      ports?: { port: number; targetPort: string }[];
      template: {
        spec: {
          containers: Container[];
          volumes?: { name: string; configMap?: { name: string; items: { key: string; path: string }[] } }[];
        };
      };
    };
  }
  const manifests = (path: string) => parseAllDocuments(read(path)).map((doc) => doc.toJS() as Manifest);
  const base = yamlFile("infra/k8s/kustomization.yaml") as { resources: string[] };
  const component = yamlFile("infra/k8s/tracing/kustomization.yaml") as {
    kind: string;
    resources: string[];
    configMapGenerator: { name: string; files: string[] }[];
    patches: { patch: string }[];
  };
  const baseManifests = base.resources.flatMap((file) => manifests(`infra/k8s/${file}`));
  const patched = component.patches.map((p) => parse(p.patch) as Manifest);
  const otelManifests = component.resources.flatMap((file) => manifests(`infra/k8s/tracing/${file}`));
  const collectorDeployment = otelManifests.find((m) => m.kind === "Deployment")!;
  const collectorService = otelManifests.find((m) => m.kind === "Service")!;

  it("is a Component the base kustomization names (commented out: tracing is off by default)", () => {
    expect(component.kind).toBe("Component");
    expect(read("infra/k8s/kustomization.yaml")).toMatch(/^# components:\n#\s+- tracing$/m);
  });

  it("reaches every toolmesh Deployment through the toolmesh-env ConfigMap it patches", () => {
    const deployments = baseManifests.filter((m) => m.kind === "Deployment");
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(services);
    for (const deployment of deployments) {
      const refs = deployment.spec.template.spec.containers[0]!.envFrom?.map((e) => e.configMapRef?.name);
      expect(refs, deployment.metadata.name).toContain("toolmesh-env");
    }
    expect(patched.map((p) => `${p.kind}/${p.metadata.name}`)).toEqual(["ConfigMap/toolmesh-env"]);
  });

  it("turns tracing on for every service, towards the collector's Service and port, head-sampled", () => {
    const shared = baseManifests.find((m) => m.kind === "ConfigMap" && m.metadata.name === "toolmesh-env")!.data!;
    for (const service of services) expect(tracingOf(service, shared), service).toBeUndefined();
    const traced = { ...shared, ...patched[0]!.data };
    const port = collectorService.spec.ports![0]!;
    const container = collectorDeployment.spec.template.spec.containers[0]!;
    expect(container.ports!.find((p) => p.name === port.targetPort)!.containerPort).toBe(collectorPort);
    for (const service of services) {
      expect(tracingOf(service, traced)!.url, service).toBe(`http://${collectorService.metadata.name}:${port.port}/v1/traces`);
    }
    expect(traced).toMatchObject({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.1" });
  });

  it("runs the same collector image as compose, on the generated ConfigMap of the shared config", () => {
    const container = collectorDeployment.spec.template.spec.containers[0]!;
    const compose = yamlFile("infra/compose/docker-compose.yml") as { services: Record<string, { image: string }> };
    expect(container.image).toBe(compose.services["otel-collector"]!.image);
    const [generated] = component.configMapGenerator;
    expect(existsSync(resolve(repo, "infra/k8s/tracing", generated!.files[0]!))).toBe(true);
    expect(resolve(repo, "infra/k8s/tracing", generated!.files[0]!)).toBe(resolve(repo, COLLECTOR_CONFIG));
    const volume = collectorDeployment.spec.template.spec.volumes!.find((v) => v.configMap?.name === generated!.name)!;
    const mount = container.volumeMounts!.find((m) => m.name === volume.name)!;
    const item = volume.configMap!.items[0]!;
    expect(item.key).toBe(generated!.files[0]);
    expect(container.args).toEqual([`--config=${mount.mountPath}/${item.path}`]);
  });
});
