import { describe, expect, it } from "vitest";
import { DefinedToolService, ROOT_TRACE_CONTEXT, createLogger } from "@toolmesh/base";
import { JOKE_STYLES, chooseJoke } from "../../src/jokes.js";
import { tellJoke } from "../../src/tell-joke.js";
import { requestTopic, responseTopic, testTopics } from "@toolmesh/test-support";

describe("chooseJoke", () => {
  it("picks by style and topic, the same joke every time", () => {
    expect(chooseJoke("pun", "cats")).toMatch(/^Here's a pun: .*(purr|mew)/);
    expect(chooseJoke("dad-joke", "cats")).toBe("Why don't cats play poker in the jungle? Too many cheetahs.");
    expect(chooseJoke("pun", "Cats ")).toBe(chooseJoke("pun", "cats"));
  });

  it("gives different jokes for different styles on the same topic", () => {
    const jokes = new Set(JOKE_STYLES.map((style) => chooseJoke(style, "coffee")));
    expect(jokes.size).toBe(3);
  });

  it("falls back to a template naming an unknown topic", () => {
    expect(chooseJoke("one-liner", "quantum physics")).toContain("quantum physics");
  });
});

describe("the tell-joke tool", () => {
  const jokes = (topic: string) => new DefinedToolService({ id: "joke-service", topic, tool: tellJoke });
  const context = { id: "r1", logger: createLogger("joke-test", "silent"), trace: ROOT_TRACE_CONTEXT };
  const service = {
    invoke: (user: string, config: Record<string, unknown>, args: Record<string, unknown>) =>
      jokes("joke").invoke(user, config, args, context),
  };

  it("uses the style from config and the topic from arguments", async () => {
    expect(await service.invoke("u", { style: "dad-joke" }, { topic: "dogs" })).toBe("What do you call a dog magician? A labracadabrador.");
    expect(await service.invoke("u", {}, { topic: "dogs" })).toMatch(/^Here's a pun/);
  });

  it("refuses an unknown style and a missing topic with clear messages", async () => {
    await expect(service.invoke("u", { style: "limerick" }, { topic: "x" })).rejects.toThrow(
      "unknown style 'limerick': use one of pun, dad-joke, one-liner",
    );
    await expect(service.invoke("u", {}, {})).rejects.toThrow("argument 'topic' is required");
    await expect(service.invoke("u", {}, { topic: "x", mood: "dark" })).rejects.toThrow("unknown argument 'mood'");
  });

  it("generates the arguments' JSON Schema from zod", () => {
    expect(jokes("joke").manifest(testTopics())[0]!.parameters_schema).toEqual({
      type: "object",
      properties: { topic: { type: "string", minLength: 1, description: "What the joke is about" } },
      required: ["topic"],
      additionalProperties: false,
    });
  });

  it("describes one tool per style, bound to its topic with that style", () => {
    const manifest = jokes("jokes-2").manifest(testTopics());
    expect(manifest.map((t) => t.name)).toEqual(["tell-pun", "tell-dad-joke", "tell-one-liner"]);
    expect(manifest[1]!.binding).toEqual({
      kind: "tool-service",
      request_topic: requestTopic("jokes-2"),
      response_topic: responseTopic("jokes-2"),
      config: { style: "dad-joke" },
    });
  });
});
