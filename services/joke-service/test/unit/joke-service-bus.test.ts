import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolServiceClient } from "@toolmesh/base";
import { MemoryBus } from "@toolmesh/base/testing";
import { ToolAnnouncement } from "@toolmesh/schema";
import { waitFor, requestTopic, responseTopic, serviceTopics, testTopics } from "@toolmesh/test-support";
import { buildJokeService } from "../../src/app.js";
import { loadEnv } from "../../src/env.js";

// The joke service as main.ts builds it, on the in-memory bus: it announces its tools and answers
// tool-service requests, refusing bad arguments and config with errors that name the field.
const bus = new MemoryBus();
let announcements: ToolAnnouncement[];
let jokes: ToolServiceClient;

beforeAll(async () => {
  announcements = await bus.record(testTopics().toolAnnouncements, ToolAnnouncement);
  const env = loadEnv({ HTTP_PORT: "0" });
  await buildJokeService(bus.runtime("joke-service", env), env);
  jokes = await ToolServiceClient.create(bus.client(), {
    ...serviceTopics(env.JOKE_TOPIC),
    timeoutMs: 2_000,
  });
});
afterAll(async () => {
  await jokes.close();
  await bus.close();
});

const failure = (call: Promise<unknown>) =>
  call.then(
    () => "no error",
    (err: unknown) => err,
  );

describe("joke-service on the in-memory bus", () => {
  it("announces one catalog entry per style on the announcements topic", async () => {
    const announced = await waitFor(() => announcements[0], { timeoutMs: 2_000, intervalMs: 10, description: "the announcement" });
    expect(announced.service_id).toBe("joke-service");
    expect(announced.manifest.map((e) => [e.name, e.binding])).toEqual(
      ["pun", "dad-joke", "one-liner"].map((style) => [
        `tell-${style}`,
        { kind: "tool-service", request_topic: requestTopic("joke"), response_topic: responseTopic("joke"), config: { style } },
      ]),
    );
  });

  it("tells the joke of the configured style about the topic", async () => {
    expect(await jokes.call("alice", { style: "dad-joke" }, { topic: "cats" })).toBe(
      "Why don't cats play poker in the jungle? Too many cheetahs.",
    );
  });

  it("refuses a missing topic, an unknown argument and an unknown style, and keeps serving", async () => {
    expect(await failure(jokes.call("u", {}, {}))).toMatchObject({ type: "bad-request", message: "argument 'topic' is required" });
    expect(await failure(jokes.call("u", {}, { topic: "cats", colour: "red" }))).toMatchObject({
      type: "bad-request",
      message: expect.stringMatching(/colour/),
    });
    expect(await failure(jokes.call("u", { style: "limerick" }, { topic: "cats" }))).toMatchObject({
      message: expect.stringMatching(/unknown style 'limerick': use one of pun, dad-joke, one-liner/),
    });
    expect(await jokes.call("u", { style: "dad-joke" }, { topic: "cats" })).toMatch(/cheetahs/);
  });
});
