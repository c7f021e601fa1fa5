import { z } from "zod";
import { defineTool } from "@toolmesh/base";
import { JOKE_STYLES, chooseJoke } from "./jokes.js";

const style = z.enum(JOKE_STYLES, { error: (issue) => `unknown style '${String(issue.input)}': use one of ${JOKE_STYLES.join(", ")}` });

/** The seed's example tool: `style` comes from the tool's config, `topic` from the arguments. One catalog entry per style. */
export const tellJoke = defineTool({
  name: "tell-joke",
  description: "Tells a joke about a topic",
  // Strict: an argument it does not know is refused (`unknown argument 'x'`), and the schema says so.
  input: z.strictObject({ topic: z.string().trim().min(1).describe("What the joke is about") }),
  config: z.object({ style: style.default("pun") }),
  variants: JOKE_STYLES.map((s) => ({
    name: `tell-${s}`,
    description: `Tells a ${s.replace("-", " ")} about a topic`,
    config: { style: s },
  })),
  run: ({ topic }, { config }) => chooseJoke(config.style, topic),
});
