import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PulsarClient } from "@toolmesh/pulsar";
import type { CatalogRevision, SourceStatus } from "@toolmesh/schema";
import {
  ServiceProcess,
  brokerEnv,
  clientOptions,
  requestTopic,
  responseTopic,
  uniqueTopic,
  useBroker,
  waitFor,
} from "@toolmesh/test-support";

// Announcements come from any tool service on the bus, written by anyone: what is wrong in one is
// logged and left out, and the rest of it (and the registry) carries on.
const announceTopic = uniqueTopic("announcements", { persistence: "persistent", namespace: "flow" });
const dataDir = mkdtempSync(join(tmpdir(), "registry-announcements-"));
let pulsar: PulsarClient;
let configService: ServiceProcess;
let registry: ServiceProcess;

const tool = (name: string) => ({
  tool_id: `peer.${name}`,
  name,
  description: "a tool a peer announced",
  parameters_schema: { type: "object", properties: { topic: { type: "string" } } },
  binding: { kind: "tool-service", request_topic: requestTopic("peer"), response_topic: responseTopic("peer"), config: {} },
});
const announce = (body: unknown) => pulsar.send(announceTopic, Buffer.from(typeof body === "string" ? body : JSON.stringify(body)), {});
const announcement = (serviceId: string, manifest: unknown[]) => ({
  service_id: serviceId,
  manifest,
  announced_at: new Date().toISOString(),
});
// Before the first revision the catalog route answers an error, with no tools.
const catalog = async () => (await (await fetch(`${registry.url}/tools/catalog`)).json()) as Partial<CatalogRevision>;
const toolsOf = async (serviceId: string) =>
  ((await catalog()).tools ?? []).filter((t) => t.source === `announce:${serviceId}`).map((t) => t.name);

beforeAll(async () => {
  const broker = await useBroker();
  configService = await ServiceProcess.start({
    service: "config",
    env: { ...brokerEnv(broker), CONFIG_DATA_DIR: join(dataDir, "config") },
  });
  registry = await ServiceProcess.start({
    service: "tool-registry",
    env: {
      ...brokerEnv(broker),
      REGISTRY_DATA_DIR: join(dataDir, "registry"),
      REGISTRY_REFRESH_INTERVAL_MS: "0",
      TOOL_ANNOUNCE_TOPIC: announceTopic,
    },
  });
  pulsar = new PulsarClient(clientOptions(broker));
}, 120_000);

afterAll(async () => {
  await pulsar?.close();
  await Promise.all([registry?.stop(), configService?.stop()]);
  rmSync(dataDir, { recursive: true, force: true });
});

describe("announcements from peers", () => {
  it("keeps the good tools of an announcement that also carries bad ones, and says which were left out", async () => {
    const bad = [
      { ...tool("bad name!"), tool_id: "peer.bad-name" },
      { ...tool("bad-binding"), binding: { kind: "carrier-pigeon" } },
      { ...tool("bad-schema"), parameters_schema: { type: "object", properties: { topic: { type: 5 } } } },
      "not an entry",
    ];
    await announce(announcement("mixed-service", [tool("good-one"), ...bad, tool("good-two")]));
    await waitFor(async () => (await toolsOf("mixed-service")).length > 0, { timeoutMs: 15_000, description: "the announced good tools" });
    expect(await toolsOf("mixed-service")).toEqual(["good-one", "good-two"]);
    await waitFor(() => registry.logs.includes("announcement has invalid tools"), { description: "the log naming the bad tools" });
    const logged = registry.logs.split("\n").find((line) => line.includes("announcement has invalid tools"))!;
    expect(logged).toContain("bad name!");
    expect(logged).toContain("bad-binding");
    expect(logged).toContain("bad-schema");
  });

  it("skips announcements that are not announcements at all, and keeps reading the topic", async () => {
    for (const junk of ["{nonsense", "", "[]", "null", { service_id: 5 }, announcement("x", "not a list" as unknown as unknown[])])
      await announce(junk);
    await announce(announcement("after-junk", [tool("still-read")]));
    await waitFor(async () => (await toolsOf("after-junk")).length > 0, {
      timeoutMs: 15_000,
      description: "the announcement after the junk",
    });
    expect(await toolsOf("after-junk")).toEqual(["still-read"]);
    expect((await fetch(`${registry.url}/readyz`)).status).toBe(200);
  });

  it("keeps two processes of one tool service on different topics apart: the first's tools stay, the second's are refused by name", async () => {
    const broker = await useBroker();
    const suffix = randomUUID().slice(0, 8);
    const [topicA, topicB] = [`jokes-a-${suffix}`, `jokes-b-${suffix}`];
    // Heartbeats every 300 ms: were the two one service id, each would replace the other's tools in turn.
    const jokes = (topic: string) =>
      ServiceProcess.start({
        service: "joke-service",
        env: { ...brokerEnv(broker), JOKE_TOPIC: topic, TOOL_ANNOUNCE_TOPIC: announceTopic, TOOL_ANNOUNCE_INTERVAL_MS: "300" },
      });
    const first = await jokes(topicA);
    let second: ServiceProcess | undefined;
    try {
      await waitFor(async () => (await toolsOf(`joke-service-${topicA}`)).length === 3, {
        timeoutMs: 15_000,
        description: "the first's tools",
      });
      second = await jokes(topicB);
      const sourceB = async () =>
        ((await (await fetch(`${registry.url}/tools/sources`)).json()) as SourceStatus[]).find(
          (s) => s.source === `announce:joke-service-${topicB}`,
        );
      const refused = await waitFor(async () => (await sourceB())?.reason ?? undefined, {
        timeoutMs: 15_000,
        description: "the second's refusal",
      });
      expect(refused).toContain(
        `tool name 'tell-pun' (joke-service-${topicB}.tell-pun) is already taken by joke-service-${topicA}.tell-pun`,
      );
      // Over several heartbeats of both, every look at the catalog finds the names on the first's topic.
      for (let look = 0; look < 5; look++) {
        const pun = ((await catalog()).tools ?? []).find((t) => t.name === "tell-pun");
        expect(pun?.binding).toMatchObject({ kind: "tool-service", request_topic: requestTopic(topicA) });
        await new Promise((r) => setTimeout(r, 300));
      }
      expect(await toolsOf(`joke-service-${topicB}`)).toEqual([]);
    } finally {
      await Promise.all([first.stop(), second?.stop()]);
    }
  });
});
