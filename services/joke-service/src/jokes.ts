export const JOKE_STYLES = ["pun", "dad-joke", "one-liner"] as const;
export type JokeStyle = (typeof JOKE_STYLES)[number];

/** Jokes by style and topic; `*` holds templates for topics we have nothing on ({topic} is replaced). */
const JOKES: Record<JokeStyle, Record<string, string[]>> = {
  pun: {
    cats: [
      "Here's a pun: cats are purr-fect at everything, especially being a-mew-sing.",
      "Here's a pun: my cat is a great DJ, he always brings the mewsic.",
    ],
    dogs: ["Here's a pun: my dog is a great magician, he does a lot of labra-cadabra-dor."],
    coffee: ["Here's a pun: coffee has a rough time, it gets mugged every morning."],
    computers: ["Here's a pun: my computer caught a cold, it had too many windows open."],
    "*": ["Here's a pun: I tried to make a pun about {topic}, but it didn't quite {topic}-k out."],
  },
  "dad-joke": {
    cats: ["Why don't cats play poker in the jungle? Too many cheetahs."],
    dogs: ["What do you call a dog magician? A labracadabrador."],
    coffee: ["How does a coffee bean propose? I love you a latte."],
    computers: ["Why did the computer go to the doctor? It had a virus."],
    "*": ["I asked my dad for a joke about {topic}. He said he'd tell me later, it's still loading."],
  },
  "one-liner": {
    cats: ["A cat's job is to sit on whatever you are using."],
    dogs: ["My dog thinks I'm a genius: I can open the fridge."],
    coffee: ["Decaf is just coffee with the point removed."],
    computers: ["There are 10 kinds of people: those who read binary and those who don't."],
    "*": ["I'd tell you a one-liner about {topic}, but it would take two."],
  },
};

/** Deterministic: the same style and topic always give the same joke, so callers can rely on it. */
export function chooseJoke(style: JokeStyle, topic: string): string {
  const key = topic.trim().toLowerCase();
  const pool = JOKES[style][key] ?? JOKES[style]["*"]!;
  let hash = 0;
  for (const char of key) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return pool[hash % pool.length]!.replaceAll("{topic}", topic.trim());
}
