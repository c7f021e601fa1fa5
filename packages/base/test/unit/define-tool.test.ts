import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolAnnouncement } from "@toolmesh/schema";
import {
  DefinedToolService,
  type ServiceRuntime,
  ToolServiceClient,
  ToolServiceEnv,
  defineTool,
  serveToolService,
} from "../../src/index.js";
import { MemoryBus } from "../../src/testing/index.js";
import { requestTopic, responseTopic, serviceTopics } from "@toolmesh/test-support";

// defineTool end to end on the in-memory bus: the generated schema in the manifest and the announcement,
// typed arguments in `run`, and bad arguments answered with an error naming the field while serving goes on.
const forecast = defineTool({
  name: "forecast",
  description: "The weather for a city",
  input: z.object({
    city: z.string().trim().min(1).describe("The city"),
    days: z.number().int().min(1).max(7).default(1),
  }),
  config: z.object({ units: z.enum(["metric", "imperial"]).default("metric") }),
  variants: [
    { name: "forecast", description: "The weather for a city", config: {} },
    { name: "forecast-imperial", description: "The weather for a city, in °F", config: { units: "imperial" } },
  ],
  // `args` and `config` are typed: `days` is a number, `units` one of two strings.
  run: (args, { config, user }) => `${user}: ${args.city} for ${args.days * 1} day(s) in ${config.units satisfies "metric" | "imperial"}`,
});

const counter = defineTool({
  name: "count",
  description: "Counts to n, one chunk each",
  input: z.object({ n: z.number().int().min(1).max(5) }),
  async *run({ n }) {
    for (let i = 1; i <= n; i++) yield `${i} `;
  },
});

const bus = new MemoryBus();
const announceTopic = "persistent://tg/flow/unit-announcements";
let announcements: ToolAnnouncement[];
let runtime: ServiceRuntime;
let weather: ToolServiceClient;
let counting: ToolServiceClient;

beforeAll(async () => {
  const env = ToolServiceEnv.parse({ HTTP_PORT: "0", TOOL_ANNOUNCE_TOPIC: announceTopic });
  runtime = bus.runtime("weather", env);
  const pulsar = bus.client();
  announcements = await bus.record(announceTopic, ToolAnnouncement);
  await serveToolService(runtime, new DefinedToolService({ id: "weather", topic: "weather-unit", tool: forecast }), env, true);
  await new DefinedToolService({ id: "counter", topic: "count-unit", tool: counter }).start(runtime, { announce: false });
  weather = await ToolServiceClient.create(pulsar, {
    ...serviceTopics("weather-unit"),
    timeoutMs: 2_000,
  });
  counting = await ToolServiceClient.create(pulsar, {
    ...serviceTopics("count-unit"),
    timeoutMs: 2_000,
  });
});
afterAll(async () => {
  await weather.close();
  await counting.close();
  await bus.close();
});

const failure = (call: Promise<unknown>) =>
  call.then(
    () => "no error",
    (err: unknown) => err,
  );

describe("defineTool", () => {
  it("generates the JSON Schema of the arguments from the zod schema (defaults optional)", () => {
    expect(forecast.parametersSchema).toEqual({
      type: "object",
      properties: {
        city: { type: "string", minLength: 1, description: "The city" },
        days: { type: "integer", minimum: 1, maximum: 7, default: 1 },
      },
      required: ["city"],
    });
  });

  it("runs with validated, defaulted arguments and config", async () => {
    expect(await weather.call("alice", {}, { city: " Oslo " })).toBe("alice: Oslo for 1 day(s) in metric");
    expect(await weather.call("bob", { units: "imperial" }, { city: "Lima", days: 3 })).toBe("bob: Lima for 3 day(s) in imperial");
  });

  it("answers a missing argument with bad-request naming it", async () => {
    expect(await failure(weather.call("u", {}, { days: 2 }))).toMatchObject({
      type: "bad-request",
      message: "argument 'city' is required",
    });
  });

  it("answers invalid arguments with bad-request naming each bad field, and keeps serving", async () => {
    const err = await failure(weather.call("u", {}, { city: "", days: 9 }));
    expect(err).toMatchObject({ type: "bad-request" });
    expect((err as Error).message).toMatch(/^argument 'city': .*; argument 'days': .*<=7/);
    expect(await failure(weather.call("u", {}, { city: 42 }))).toMatchObject({
      message: expect.stringMatching(/^argument 'city': .*expected string/),
    });
    expect(await weather.call("u", {}, { city: "Oslo" })).toBe("u: Oslo for 1 day(s) in metric");
  });

  it("answers config outside the tool's config schema with tool-service-error naming the value", async () => {
    const err = await failure(weather.call("u", { units: "kelvin" }, { city: "Oslo" }));
    expect(err).toMatchObject({ type: "tool-service-error", message: expect.stringMatching(/^config 'units': /) });
  });

  it("streams what run yields, one reply per chunk", async () => {
    const chunks: string[] = [];
    for await (const chunk of counting.stream("u", {}, { n: 3 })) chunks.push(chunk);
    expect(chunks).toEqual(["1 ", "2 ", "3 "]);
    expect(await failure(counting.call("u", {}, { n: 0 }))).toMatchObject({
      type: "bad-request",
      message: expect.stringMatching(/^argument 'n': /),
    });
  });

  it("serves and announces a manifest entry per variant with the generated schema", async () => {
    const manifest = await (await runtime.http.inject({ method: "GET", url: "/tools/manifest" })).json();
    expect(manifest).toEqual([
      {
        tool_id: "weather.forecast",
        name: "forecast",
        description: "The weather for a city",
        parameters_schema: forecast.parametersSchema,
        binding: {
          kind: "tool-service",
          request_topic: requestTopic("weather-unit"),
          response_topic: responseTopic("weather-unit"),
          config: {},
        },
      },
      expect.objectContaining({ name: "forecast-imperial", binding: expect.objectContaining({ config: { units: "imperial" } }) }),
    ]);
    for (let i = 0; i < 200 && announcements.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(announcements).toHaveLength(1);
    expect(announcements[0]).toMatchObject({ service_id: "weather", manifest });
  });
});
