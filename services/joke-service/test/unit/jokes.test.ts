import { describe, expect, it } from "vitest";
import { requestTopic, responseTopic } from "@toolmesh/schema";
import { JOKE_STYLES, chooseJoke, isJokeStyle } from "../../src/jokes.js";
import { JokeService } from "../../src/joke-service.js";

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

  it("knows its styles", () => {
    expect(isJokeStyle("pun")).toBe(true);
    expect(isJokeStyle("limerick")).toBe(false);
  });
});

describe("JokeService.invoke", () => {
  const service = new JokeService("joke");

  it("uses the style from config and the topic from arguments", async () => {
    expect(await service.invoke("u", { style: "dad-joke" }, { topic: "dogs" })).toBe("What do you call a dog magician? A labracadabrador.");
    expect(await service.invoke("u", {}, { topic: "dogs" })).toMatch(/^Here's a pun/);
  });

  it("refuses an unknown style and a missing topic with clear messages", async () => {
    await expect(service.invoke("u", { style: "limerick" }, { topic: "x" })).rejects.toThrow(
      "unknown style 'limerick': use one of pun, dad-joke, one-liner",
    );
    await expect(service.invoke("u", {}, {})).rejects.toThrow("argument 'topic' is required");
  });

  it("describes one tool per style, bound to its topic with that style", () => {
    const manifest = new JokeService("jokes-2").manifest();
    expect(manifest.map((t) => t.name)).toEqual(["tell-pun", "tell-dad-joke", "tell-one-liner"]);
    expect(manifest[1]!.binding).toEqual({
      kind: "tool-service",
      request_topic: requestTopic("jokes-2"),
      response_topic: responseTopic("jokes-2"),
      config: { style: "dad-joke" },
    });
  });
});
