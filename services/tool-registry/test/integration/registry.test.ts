import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmbeddedEnv, DynamicToolService, ServiceRuntime, parseEnv } from "@toolmesh/base";
import { PulsarClient, RequestClient } from "@toolmesh/pulsar";
import {
  type CatalogRevision,
  ConfigResponse,
  type ManifestEntry,
  type SourceStatus,
  ToolRegistryPush,
  ToolRegistryResponse,
} from "@toolmesh/schema";
import {
  ServiceProcess,
  freePort,
  uniqueTopic,
  useBroker,
  waitFor,
  brokerEnv,
  clientOptions,
  requestTopic,
  responseTopic,
  serviceTopics,
  testTopics,
} from "@toolmesh/test-support";
import { ManifestServer } from "./manifest-server.js";

const ADMIN = "test-admin-token-0123456789";
const announceTopic = uniqueTopic("announcements", { persistence: "persistent", namespace: "flow" });
const dataDir = mkdtempSync(join(tmpdir(), "registry-test-"));
const manifests = new ManifestServer();
const jokeTopic = `joke-${randomUUID().slice(0, 8)}`;
const pushes: ToolRegistryPush[] = [];
let pulsar: PulsarClient;
let config: RequestClient<typeof ConfigResponse>;
let registryBus: RequestClient<typeof ToolRegistryResponse>;
let configService: ServiceProcess;
let jokes: ServiceProcess;
let registry: ServiceProcess;

const weather = (description: string, schemaKeysFirst = false): ManifestEntry => ({
  tool_id: "mutable.weather",
  name: "get-weather",
  description,
  parameters_schema: schemaKeysFirst
    ? {
        required: ["city"],
        additionalProperties: false,
        properties: { city: { description: "City name", type: "string" } },
        type: "object",
      }
    : {
        type: "object",
        properties: { city: { type: "string", description: "City name" } },
        required: ["city"],
        additionalProperties: false,
      },
  binding: { kind: "text-completion" },
});
const clock: ManifestEntry = {
  tool_id: "mutable.clock",
  name: "get-time",
  description: "Current time",
  parameters_schema: { type: "object" },
  binding: { kind: "text-completion" },
};

const source = (id: string, url: string, active = true) => ({
  type: "tool-source",
  key: id,
  value: JSON.stringify({ id, manifest_url: url, active }),
});
const putSources = async (...values: ReturnType<typeof source>[]) => {
  const reply = await config.request({ operation: "put", values });
  expect(reply.error).toBeNull();
};
const http = async (path: string, init: RequestInit = {}) => {
  const response = await fetch(`${registry.url}${path}`, init);
  return { status: response.status, body: (await response.json()) as unknown };
};
const adminRefresh = (token = ADMIN) => http("/admin/tools/refresh", { method: "POST", headers: { authorization: `Bearer ${token}` } });
const current = async () => (await http("/tools/catalog")).body as CatalogRevision;
const sources = async () => (await http("/tools/sources")).body as SourceStatus[];
const statusOf = async (name: string) => (await sources()).find((s) => s.source === name);

beforeAll(async () => {
  const broker = await useBroker();
  await manifests.start();
  manifests.json("/mutable", [weather("Weather for a city"), clock]);
  configService = await ServiceProcess.start({
    service: "config",
    env: { ...brokerEnv(broker), CONFIG_DATA_DIR: join(dataDir, "config") },
  });
  jokes = await ServiceProcess.start({
    service: "joke-service",
    env: { ...brokerEnv(broker), JOKE_TOPIC: jokeTopic, JOKE_ANNOUNCE: "false" },
  });
  registry = await ServiceProcess.start({
    service: "tool-registry",
    env: {
      ...brokerEnv(broker),
      REGISTRY_DATA_DIR: join(dataDir, "registry"),
      REGISTRY_ADMIN_TOKEN: ADMIN,
      REGISTRY_ALLOWED_NETWORKS: "127.0.0.0/8",
      REGISTRY_FETCH_TIMEOUT_MS: "1000",
      REGISTRY_MAX_MANIFEST_BYTES: "200000",
      REGISTRY_REFRESH_INTERVAL_MS: "0",
      REGISTRY_ANNOUNCEMENT_TTL_MS: "4000",
      TOOL_ANNOUNCE_TOPIC: announceTopic,
    },
  });
  pulsar = new PulsarClient(clientOptions(broker));
  config = await RequestClient.create(pulsar, {
    ...serviceTopics("config"),
    responseSchema: ConfigResponse,
  });
  registryBus = await RequestClient.create(pulsar, {
    ...serviceTopics("tool-registry"),
    responseSchema: ToolRegistryResponse,
  });
  await pulsar.subscribe(
    { topic: testTopics().toolRegistryNotify, subscription: `registry-test-${randomUUID()}`, type: "Exclusive" },
    async (m) => {
      pushes.push(ToolRegistryPush.parse(JSON.parse(m.payload.toString())));
    },
  );
}, 120_000);

afterAll(async () => {
  await registryBus?.close();
  await config?.close();
  await pulsar?.close();
  await Promise.all([registry?.stop(), jokes?.stop(), configService?.stop()]);
  await manifests.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("catalog revisions", () => {
  it("pulls joke-service's manifest over HTTP into revision 1, with a push", async () => {
    expect((await http("/tools/catalog")).status).toBe(404);
    await putSources(source("jokes", `${jokes.url}/tools/manifest`), source("mutable", manifests.url("/mutable")));
    const first = await waitFor(
      async () => {
        const r = await http("/tools/catalog");
        return r.status === 200 ? (r.body as CatalogRevision) : undefined;
      },
      { description: "revision 1" },
    );
    expect(first.revision_number).toBe(1);
    expect(first.tools.map((t) => t.name).sort()).toEqual(["get-time", "get-weather", "tell-dad-joke", "tell-one-liner", "tell-pun"]);
    expect(first.tools.find((t) => t.name === "tell-pun")).toMatchObject({ source: "source:jokes", binding: { config: { style: "pun" } } });
    await waitFor(() => pushes.find((p) => p.revision_number === 1), { description: "the push for revision 1" });
  });

  it("refuses the admin refresh without the token, and is idempotent with it", async () => {
    const missing = await http("/admin/tools/refresh", { method: "POST" });
    expect(missing.status).toBe(401);
    expect((await adminRefresh("wrong-token-wrong-token")).status).toBe(401);
    const again = await adminRefresh();
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ revision_number: 1, created: false, tool_count: 5 });
    const viaBus = await registryBus.request({ operation: "refresh" });
    expect(viaBus.created).toBe(false);
    expect(viaBus.revision?.revision_number).toBe(1);
  });

  it("makes revision 2 when one description changes, and the diff names exactly that tool", async () => {
    manifests.json("/mutable", [weather("Weather forecast for a city"), clock]);
    expect((await adminRefresh()).body).toMatchObject({ revision_number: 2, created: true });
    expect((await http("/tools/catalog/diff?from=1&to=2")).body).toEqual({
      from_revision: 1,
      to_revision: 2,
      added: [],
      removed: [],
      changed: ["mutable.weather"],
    });
    const viaBus = await registryBus.request({ operation: "diff" });
    expect(viaBus.diff).toEqual({ from_revision: 1, to_revision: 2, added: [], removed: [], changed: ["mutable.weather"] });
  });

  it("does not change the hash when only key order inside parameters_schema changes", async () => {
    const before = await current();
    manifests.json("/mutable", [clock, weather("Weather forecast for a city", true)]);
    expect((await adminRefresh()).body).toMatchObject({ revision_number: 2, created: false, content_hash: before.content_hash });
  });

  it("keeps every revision readable by number and by hash, unchanged", async () => {
    const one = (await http("/tools/catalog/revisions/1")).body as CatalogRevision;
    const byHash = (await http(`/tools/catalog/revisions/${one.content_hash}`)).body as CatalogRevision;
    expect(byHash).toEqual(one);
    expect(one.tools.find((t) => t.tool_id === "mutable.weather")?.description).toBe("Weather for a city");
    expect(((await http("/tools/catalog/revisions")).body as Array<{ revision_number: number }>).map((r) => r.revision_number)).toEqual([
      2, 1,
    ]);
    expect((await http("/tools/catalog/revisions/99")).status).toBe(404);
    expect((await registryBus.request({ operation: "get-revision", revision_number: 99 })).error?.type).toBe("not-found");
  });
});

describe("failing sources never empty the catalog", () => {
  it("reports a down, slow, huge, non-JSON, invalid-schema and duplicate source, and keeps serving", async () => {
    const closedPort = await freePort();
    manifests.routes.set("/slow", (respond) => setTimeout(() => respond(200, "[]", { "content-type": "application/json" }), 3_000));
    manifests.routes.set("/huge", (respond) =>
      respond(200, JSON.stringify([{ ...clock, description: "x".repeat(300_000) }]), { "content-type": "application/json" }),
    );
    manifests.routes.set("/not-json", (respond) => respond(200, "{ this is not json", { "content-type": "application/json" }));
    manifests.json("/bad-schema", [{ ...clock, tool_id: "bad.schema", name: "bad-schema", parameters_schema: { type: "strnig" } }]);
    manifests.json("/duplicate", [{ ...clock, tool_id: "dup.pun", name: "tell-pun", description: "an impostor" }]);
    const before = await current();
    await putSources(
      source("down", `http://127.0.0.1:${closedPort}/manifest`),
      source("slow", manifests.url("/slow")),
      source("huge", manifests.url("/huge")),
      source("not-json", manifests.url("/not-json")),
      source("bad-schema", manifests.url("/bad-schema")),
      source("duplicate", manifests.url("/duplicate")),
    );
    await waitFor(async () => (await statusOf("source:duplicate"))?.reason, { timeoutMs: 15_000, description: "the sources to be read" });
    const expected: Record<string, RegExp> = {
      "source:down": /cannot fetch .*ECONNREFUSED|cannot fetch/,
      "source:slow": /timed out after 1000 ms/,
      "source:huge": /200000-byte limit/,
      "source:not-json": /invalid JSON/,
      "source:bad-schema": /not a valid JSON Schema/,
      // Off its default topic the joke-service's id (and so its tools' ids) names the topic.
      "source:duplicate": new RegExp(
        `tool name 'tell-pun' \\(dup.pun\\) is already taken by joke-service-${jokeTopic}.tell-pun from source:jokes`,
      ),
    };
    for (const [name, reason] of Object.entries(expected)) {
      const status = await statusOf(name);
      expect(status?.status, name).toBe("degraded");
      expect(status?.reason, name).toMatch(reason);
    }
    const after = await current();
    expect(after.revision_number).toBe(before.revision_number);
    expect(after.tool_count).toBe(5);
    expect((await fetch(`${registry.url}/readyz`)).status).toBe(200);
  });

  it("keeps a source's last good tools when it starts failing", async () => {
    manifests.routes.set("/mutable", (respond) => respond(500, "boom"));
    const result = await adminRefresh();
    expect(result.body).toMatchObject({ created: false, tool_count: 5 });
    expect(await statusOf("source:mutable")).toMatchObject({
      status: "degraded",
      tool_count: 2,
      reason: expect.stringMatching(/HTTP 500/),
    });
    manifests.json("/mutable", [weather("Weather forecast for a city"), clock]);
  });

  it("refuses manifest URLs on metadata and non-allow-listed internal addresses without connecting", async () => {
    await putSources(
      source("metadata", "http://169.254.169.254/latest/meta-data/"),
      source("private", "http://10.20.30.40/tools/manifest"),
      source("redirect", manifests.url("/redirect")),
    );
    manifests.routes.set("/redirect", (respond) => respond(302, "", { location: "http://localhost:9/elsewhere" }));
    await waitFor(async () => (await statusOf("source:redirect"))?.reason, { timeoutMs: 10_000, description: "the new sources" });
    expect((await statusOf("source:metadata"))?.reason).toMatch(/169.254.169.254 is link-local, metadata or otherwise never allowed/);
    expect((await statusOf("source:private"))?.reason).toMatch(/10.20.30.40 is internal and not in REGISTRY_ALLOWED_NETWORKS/);
    expect((await statusOf("source:redirect"))?.reason).toMatch(/refused redirect .* to another host/);
    expect((await current()).tool_count).toBe(5);
  });
});

describe("self-announcing tool services", () => {
  it("adds a tool service started after the registry through its announcement alone, and forgets it when it stops announcing", async () => {
    const broker = await useBroker();
    const runtime = new ServiceRuntime({
      name: "weather-service",
      env: parseEnv(EmbeddedEnv, { ...brokerEnv(broker) }),
      logger: pino({ level: "silent" }),
    });
    class WeatherService extends DynamicToolService {
      readonly id = "weather-service";
      readonly topic = `weather-${randomUUID().slice(0, 8)}`;
      async invoke() {
        return "sunny";
      }
      override manifest(): ManifestEntry[] {
        return [
          {
            tool_id: "weather-service.forecast",
            name: "forecast",
            description: "Tomorrow's weather",
            parameters_schema: { type: "object", properties: { city: { type: "string" } } },
            binding: {
              kind: "tool-service",
              request_topic: requestTopic(this.topic),
              response_topic: responseTopic(this.topic),
              config: {},
            },
          },
        ];
      }
    }
    const before = await current();
    await new WeatherService().start(runtime, { announceTopic, announceIntervalMs: 500 });
    const next = await waitFor(
      async () => {
        const revision = await current();
        return revision.revision_number > before.revision_number ? revision : undefined;
      },
      { timeoutMs: 15_000, description: "a revision with the announced tool" },
    );
    expect(next.tools.find((t) => t.name === "forecast")).toMatchObject({
      source: "announce:weather-service",
      tool_id: "weather-service.forecast",
    });
    expect((await http(`/tools/catalog/diff?from=${before.revision_number}&to=${next.revision_number}`)).body).toMatchObject({
      added: ["weather-service.forecast"],
      removed: [],
      changed: [],
    });

    // Heartbeats keep it past the 4 s TTL; once they stop, the next refresh after the TTL drops it.
    await new Promise((r) => setTimeout(r, 5_000));
    expect((await adminRefresh()).body).toMatchObject({ created: false, revision_number: next.revision_number });
    await runtime.stop();
    await new Promise((r) => setTimeout(r, 4_500));
    const after = (await adminRefresh()).body as { revision_number: number; created: boolean };
    expect(after).toMatchObject({ created: true, revision_number: next.revision_number + 1 });
    expect((await http(`/tools/catalog/diff?from=${next.revision_number}&to=${after.revision_number}`)).body).toMatchObject({
      added: [],
      removed: ["weather-service.forecast"],
      changed: [],
    });
  }, 60_000);
});

describe("config tools TrustGraph defines", () => {
  it("leaves tools of TrustGraph-only types out of the catalog, saying why, and binds an mcp-tool tool to the gateway it names", async () => {
    const knowledge = { type: "knowledge-query", name: "ask-docs", description: "Ask the documents", collection: "docs" };
    const echo = {
      type: "mcp-tool",
      name: "echo",
      description: "Echoes",
      "mcp-tool": "everything-echo",
      "request-queue": "request:tg:mcp-tool-tg",
      "response-queue": "response:tg:mcp-tool-tg",
      arguments: [{ name: "message", type: "string", description: "what to echo" }],
    };
    const put = await config.request({
      operation: "put",
      values: [
        { type: "tool", key: "ask-docs", value: JSON.stringify(knowledge) },
        { type: "mcp", key: "everything-echo", value: JSON.stringify({ url: "http://127.0.0.1:9/mcp", "remote-name": "echo" }) },
        { type: "tool", key: "echo", value: JSON.stringify(echo) },
      ],
    });
    expect(put.error).toBeNull();
    const revision = await waitFor(
      async () => {
        const latest = await current();
        return latest.tools.some((t) => t.name === "echo") ? latest : undefined;
      },
      { timeoutMs: 15_000, description: "a revision with the config's mcp-tool tool" },
    );
    expect(revision.tools.find((t) => t.name === "echo")?.binding).toEqual({
      kind: "mcp-tool",
      mcp_tool: "everything-echo",
      request_topic: "non-persistent://tg/request/mcp-tool-tg",
      response_topic: "non-persistent://tg/response/mcp-tool-tg",
    });
    expect(revision.tools.map((t) => t.name)).not.toContain("ask-docs");
    expect(await statusOf("config")).toMatchObject({
      status: "ok",
      reason: null,
      left_out: [
        "tool 'ask-docs': type 'knowledge-query' is a TrustGraph tool type toolmesh does not execute (only TrustGraph's agents do)",
      ],
    });
    const viaBus = await registryBus.request({ operation: "sources" });
    expect(viaBus.sources.find((s) => s.source === "config")?.left_out).toHaveLength(1);
  });
});

describe("restart", () => {
  it("keeps every revision and the current catalog", async () => {
    const before = await current();
    const listBefore = (await http("/tools/catalog/revisions")).body;
    await registry.restart();
    expect(await current()).toEqual(before);
    expect((await http("/tools/catalog/revisions")).body).toEqual(listBefore);
    expect((await adminRefresh()).body).toMatchObject({ created: false, revision_number: before.revision_number });
  });
});
