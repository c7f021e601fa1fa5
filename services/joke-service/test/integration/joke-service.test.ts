import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { type Server, createServer } from "node:net";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolServiceClient, ToolServiceError } from "@toolmesh/base";
import { PulsarClient } from "@toolmesh/pulsar";
import { Manifest, ToolAnnouncement } from "@toolmesh/schema";
import {
  REPO_ROOT,
  ServiceProcess,
  freePort,
  uniqueTopic,
  useBroker,
  waitFor,
  brokerEnv,
  clientOptions,
  requestTopic,
  serviceTopics,
} from "@toolmesh/test-support";

// Its own topic, so these processes never answer another test's requests.
const topic = `joke-${randomUUID().slice(0, 8)}`;
const announceTopic = uniqueTopic("announcements", { persistence: "persistent", namespace: "flow" });
let first: ServiceProcess;
let pulsar: PulsarClient;
let jokes: ToolServiceClient;
const announcements: ToolAnnouncement[] = [];
/** The request topics an announcement's tool-service bindings name. */
const announcedTopics = (a: ToolAnnouncement) =>
  a.manifest.flatMap((t) => (t.binding.kind === "tool-service" ? [t.binding.request_topic] : []));

beforeAll(async () => {
  const broker = await useBroker();
  pulsar = new PulsarClient(clientOptions(broker));
  await pulsar.subscribe({ topic: announceTopic, subscription: `joke-test-${randomUUID()}`, type: "Exclusive" }, async (m) => {
    announcements.push(ToolAnnouncement.parse(JSON.parse(m.payload.toString())));
  });
  first = await ServiceProcess.start({
    service: "joke-service",
    env: { ...brokerEnv(broker), JOKE_TOPIC: topic, TOOL_ANNOUNCE_TOPIC: announceTopic },
  });
  jokes = await ToolServiceClient.create(pulsar, serviceTopics(topic));
});

afterAll(async () => {
  await jokes?.close();
  await pulsar?.close();
  await first?.stop();
});

describe("joke-service as a process on the real broker", () => {
  it("tells a joke in the configured style about the topic", async () => {
    expect(await jokes.call("alice", { style: "dad-joke" }, { topic: "coffee" })).toBe(
      "How does a coffee bean propose? I love you a latte.",
    );
    expect(await jokes.call("alice", { style: "one-liner" }, { topic: "coffee" })).toBe("Decaf is just coffee with the point removed.");
  });

  it("answers a bad style or missing topic with a tool-service-error and keeps serving", async () => {
    const error = await jokes.call("u", { style: "limerick" }, { topic: "x" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolServiceError);
    expect(error).toMatchObject({ type: "tool-service-error", message: expect.stringMatching(/unknown style 'limerick'/) });
    await expect(jokes.call("u", {}, {})).rejects.toThrow(/argument 'topic' is required/);
    expect(await jokes.call("u", {}, { topic: "cats" })).toMatch(/^Here's a pun/);
  });

  it("serves its manifest over HTTP and announces it on start", async () => {
    const response = await fetch(`${first.url}/tools/manifest`);
    expect(response.headers.get("content-type")).toMatch(/application\/json/);
    const manifest = Manifest.parse(await response.json());
    expect(manifest.map((t) => t.name)).toEqual(["tell-pun", "tell-dad-joke", "tell-one-liner"]);
    const mine = await waitFor(
      () => announcements.find((a) => a.manifest[0]?.binding.kind === "tool-service" && JSON.stringify(a).includes(topic)),
      {
        description: "the announcement",
      },
    );
    // Not on its default topic (`joke`): the topic is in its id, so another topic's process is another service.
    expect(mine.service_id).toBe(`joke-service-${topic}`);
    expect(mine.manifest).toEqual(manifest);
  });

  it("shares requests with a second process on the same Shared subscription", async () => {
    const broker = await useBroker();
    const second = await ServiceProcess.start({
      service: "joke-service",
      env: { ...brokerEnv(broker), JOKE_TOPIC: topic, JOKE_ANNOUNCE: "false" },
    });
    const served = async (p: ServiceProcess) => {
      const metrics = await (await fetch(`${p.url}/metrics`)).text();
      const line = metrics.split("\n").find((l) => l.startsWith("toolmesh_requests_total{") && l.includes('outcome="ok"'));
      return Number(line?.split(" ").pop() ?? 0);
    };
    const before = [await served(first), await served(second)];
    await Promise.all(Array.from({ length: 40 }, (_, i) => jokes.call("u", { style: "pun" }, { topic: `topic ${i}` })));
    const handled = [(await served(first)) - before[0]!, (await served(second)) - before[1]!];
    expect(handled[0]! + handled[1]!).toBe(40);
    expect(handled[0]).toBeGreaterThan(0);
    expect(handled[1]).toBeGreaterThan(0);
    expect(await second.stop()).toBe(0);
  });

  it("refuses to start on a taken HTTP_PORT before it serves or announces anything", async () => {
    const broker = await useBroker();
    const port = await freePort();
    const holder: Server = createServer();
    holder.listen(port, "127.0.0.1");
    await once(holder, "listening");
    const clashTopic = `${topic}-clash`;
    try {
      const child = spawn(process.execPath, [resolve(REPO_ROOT, "services/joke-service/dist/main.js")], {
        env: {
          ...process.env,
          ...brokerEnv(broker),
          LOG_FORMAT: "json",
          HTTP_HOST: "127.0.0.1",
          HTTP_PORT: String(port),
          JOKE_TOPIC: clashTopic,
          TOOL_ANNOUNCE_TOPIC: announceTopic,
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout.on("data", (d: Buffer) => (output += d.toString()));
      child.stderr.on("data", (d: Buffer) => (output += d.toString()));
      const [code] = (await once(child, "exit")) as [number | null];
      expect(code).toBe(1);
      expect(output).toContain(`joke-service: cannot listen on HTTP_HOST="127.0.0.1" HTTP_PORT="${port}": listen EADDRINUSE`);
      expect(output).not.toMatch(/serving requests|announced manifest/);
      // The first process's announcement for this file's topic arrives; none ever names the clash topic.
      await waitFor(() => announcements.some((a) => announcedTopics(a).includes(requestTopic(topic))), { description: "an announcement" });
      expect(announcements.filter((a) => announcedTopics(a).includes(requestTopic(clashTopic)))).toEqual([]);
    } finally {
      holder.close();
    }
  });
});
