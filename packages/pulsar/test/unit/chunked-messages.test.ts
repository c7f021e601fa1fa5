import { describe, expect, it } from "vitest";
import { type Chunk, ChunkedMessages, type DroppedChunks } from "../../src/binary/chunked-messages.js";
import type { MessageId } from "../../src/binary/message-id.js";

const id = (entry: number): MessageId => ({ ledgerId: "7", entryId: String(entry), partition: -1, batchIndex: -1 });

/** The chunks of one message: `text` cut into `parts` pieces, entries from `firstEntry` on. */
function chunksOf(uuid: string, text: string, parts: number, firstEntry: number, publishTimeMs = 1_000): Chunk[] {
  const size = Math.ceil(text.length / parts);
  return Array.from({ length: parts }, (_, i) => ({
    uuid,
    chunkId: i,
    numChunks: parts,
    totalSize: text.length,
    id: id(firstEntry + i),
    payload: Buffer.from(text.slice(i * size, (i + 1) * size)),
    publishTimeMs,
  }));
}

function feed(messages: ChunkedMessages, chunks: Chunk[]) {
  const dropped: DroppedChunks[] = [];
  const whole: Array<{ payload: string; ids: string[] }> = [];
  for (const chunk of chunks) {
    const done = messages.add(chunk, (d) => dropped.push(d));
    if (done) whole.push({ payload: done.payload.toString(), ids: done.ids.map((i) => i.entryId) });
  }
  return { dropped, whole };
}

describe("chunked messages put back together", () => {
  it("joins a message's chunks in order, with every chunk's id, and keeps nothing afterwards", () => {
    const messages = new ChunkedMessages({ maxPending: 10, expireMs: 60_000 }, () => 2_000);
    const { dropped, whole } = feed(messages, chunksOf("a", "hello chunked world", 3, 10));
    expect(whole).toEqual([{ payload: "hello chunked world", ids: ["10", "11", "12"] }]);
    expect(dropped).toEqual([]);
    expect(messages.pending).toBe(0);
  });

  it("assembles two messages whose chunks interleave", () => {
    const messages = new ChunkedMessages(undefined, () => 2_000);
    const [a0, a1] = chunksOf("a", "aaaa", 2, 1);
    const [b0, b1] = chunksOf("b", "bbbbbb", 2, 3);
    expect(feed(messages, [a0!, b0!, b1!, a1!]).whole.map((w) => w.payload)).toEqual(["bbbbbb", "aaaa"]);
  });

  it("gives up a message whose chunk comes out of order: its chunks and the stray one are redelivered", () => {
    const messages = new ChunkedMessages(undefined, () => 2_000);
    const [c0, c1, c2] = chunksOf("c", "abcdef", 3, 20);
    const { dropped, whole } = feed(messages, [c0!, c2!, c1!]);
    expect(whole).toEqual([]);
    expect(dropped.map((d) => ({ ids: d.ids.map((i) => i.entryId), ack: d.ack }))).toEqual([
      { ids: ["20"], ack: false },
      { ids: ["22"], ack: false },
      { ids: ["21"], ack: false },
    ]);
    expect(dropped[0]!.reason).toMatch(/chunk 2 came where chunk 1 was due/);
  });

  it("starts over when chunk 0 comes again (the producer resent the message)", () => {
    const messages = new ChunkedMessages(undefined, () => 2_000);
    const first = chunksOf("d", "xyz", 3, 30);
    const again = chunksOf("d", "xyz", 3, 40);
    const { dropped, whole } = feed(messages, [first[0]!, first[1]!, ...again]);
    expect(dropped.map((d) => d.ids.map((i) => i.entryId))).toEqual([["30", "31"]]);
    expect(whole).toEqual([{ payload: "xyz", ids: ["40", "41", "42"] }]);
  });

  it("past maxPending, the oldest message being assembled is given up for redelivery", () => {
    const messages = new ChunkedMessages({ maxPending: 2, expireMs: 60_000 }, () => 2_000);
    const starts = ["p", "q", "r"].map((uuid, i) => chunksOf(uuid, "0123", 2, 50 + 2 * i)[0]!);
    const { dropped } = feed(messages, starts);
    expect(dropped).toEqual([expect.objectContaining({ ids: [id(50)], ack: false })]);
    expect(messages.pending).toBe(2);
  });

  it("acks a message still incomplete past expireMs, and a stray chunk published that long ago", () => {
    let now = 0;
    const messages = new ChunkedMessages({ maxPending: 10, expireMs: 1_000 }, () => now);
    const [e0, e1] = chunksOf("e", "late!", 2, 60, 0);
    expect(feed(messages, [e0!]).dropped).toEqual([]);
    now = 5_000;
    const { dropped } = feed(messages, [e1!]);
    expect(dropped.map((d) => ({ ids: d.ids.map((i) => i.entryId), ack: d.ack }))).toEqual([
      { ids: ["60"], ack: true },
      { ids: ["61"], ack: true },
    ]);
  });

  it("acks chunks that cannot add up: more bytes than declared, or a chunk numbering that makes no sense", () => {
    const messages = new ChunkedMessages(undefined, () => 2_000);
    const [f0, f1] = chunksOf("f", "0123456789", 2, 70);
    const { dropped } = feed(messages, [f0!, { ...f1!, payload: Buffer.from("far too many bytes") }]);
    expect(dropped).toEqual([expect.objectContaining({ ids: [id(70), id(71)], ack: true })]);
    const odd = feed(messages, [{ ...f0!, uuid: "g", chunkId: 5, numChunks: 2 }]);
    expect(odd.dropped).toEqual([expect.objectContaining({ ids: [id(70)], ack: true })]);
  });
});
