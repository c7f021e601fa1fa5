import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceProcess, privateBroker, trustGraphToolCalls, waitFor } from "@toolmesh/test-support";

// A service on the WebSocket transport to a broker whose web service is on TLS with a private CA
// (PULSAR_WEB_TLS_PORT: https:// and wss://) and which authenticates every client by token, set up
// through the service's own environment (PULSAR_TLS_CA_FILE, PULSAR_AUTH_TOKEN). TrustGraph 2.11.1's
// ToolServiceClient, on the binary protocol with its own token, is the caller. TrustGraph fixes the tenant: tg.
const broker = privateBroker("e2e/pulsar-wss", { tokenAuth: true });
let joke: ServiceProcess;
let token: string;

const jokeTopics = { requestTopic: "non-persistent://tg/request/joke", responseTopic: "non-persistent://tg/response/joke" };
const wssEnv = ({ trustCa }: { trustCa: boolean }) => ({
  PULSAR_TRANSPORT: "websocket",
  PULSAR_WEB_URL: broker.webServiceUrlTls!,
  ...(trustCa ? { PULSAR_TLS_CA_FILE: broker.tlsCaFile } : {}),
  PULSAR_AUTH_TOKEN: token,
  TOOLMESH_TENANT: "tg",
  JOKE_ANNOUNCE: "false",
});

beforeAll(async () => {
  await broker.start();
  token = await broker.signToken("toolmesh");
  joke = await ServiceProcess.start({ service: "joke-service", env: { ...wssEnv({ trustCa: true }), BROKER_DROPS_POLL_MS: "500" } });
}, 180_000);

afterAll(async () => {
  await joke?.stop();
  await broker.discard();
});

describe("the WebSocket transport over wss:// with a private CA", () => {
  it("serves TrustGraph's ToolServiceClient, its sessions and admin calls all on TLS", async () => {
    const { results } = await trustGraphToolCalls(
      broker.serviceUrl,
      jokeTopics,
      [{ config: { style: "dad-joke" }, arguments: { topic: "cats" } }],
      { apiKey: await broker.signToken("trustgraph") },
    );
    expect(results).toEqual([{ response: "Why don't cats play poker in the jungle? Too many cheetahs." }]);
    // Its sessions went through the WebSocket API (the broker shows them as its own Java client)...
    const stats = (await fetch(`${broker.webServiceUrl}/admin/v2/non-persistent/tg/request/joke/stats`, {
      headers: { authorization: `Bearer ${broker.adminToken()}` },
    }).then((r) => r.json())) as { subscriptions: Record<string, { consumers: Array<{ clientVersion?: string }> }> };
    const consumers = Object.values(stats.subscriptions).flatMap((s) => s.consumers);
    expect(consumers.length).toBeGreaterThanOrEqual(1);
    expect(consumers.every((c) => c.clientVersion?.startsWith("Pulsar-Java"))).toBe(true);
    // ...and its broker-drop poll read the topic stats over https:// (a reading makes the line; its count
    // is what the broker dropped since the first one, so any number proves it).
    const dropsLine = /toolmesh_broker_dropped_messages_total\{[^}]*topic="non-persistent:\/\/tg\/request\/joke"[^}]*\} \d+/;
    // Up to 30 s: a poll waits up to 5 s for the stats, and this second broker JVM answers slowly while the
    // machine is busy (10 s once ran out in a full e2e run; alone it reads within 2 s).
    await waitFor(async () => dropsLine.test(await fetch(`${joke.url}/metrics`).then((r) => r.text())), {
      timeoutMs: 30_000,
      description: "a broker-drops reading of the joke-service's request topic",
    }).catch(async (err: Error) => {
      // Why it did not read them: what the joke-service logged (a refusal or a failed read is a warning) and its metrics.
      const said = joke.logs.split("\n").filter((line) => /topic stats/.test(line));
      const metrics = (await fetch(`${joke.url}/metrics`).then((r) => r.text())).split("\n").filter((l) => l.includes("dropped"));
      throw new Error(
        `${err.message}; the joke-service logged:\n${said.join("\n") || "(nothing about topic stats)"}\nits drop metrics:\n${metrics.join("\n")}`,
      );
    });
  }, 90_000);

  it("a service that does not trust the broker's CA never becomes ready, and says why", async () => {
    const untrusted = ServiceProcess.start({
      service: "joke-service",
      env: wssEnv({ trustCa: false }),
      timeoutMs: 8_000,
    });
    await expect(untrusted).rejects.toThrow(/TLS certificate did not verify: unable to verify the first certificate/);
  }, 30_000);
});
