import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { BatchFormatError, unpackBatch } from "../../src/binary/batch.js";
import { decompress, DecompressionError } from "../../src/binary/compression.js";
import { formatMessageId, parseMessageId } from "../../src/binary/message-id.js";
import { CompressionType, SingleMessageMetadata } from "../../src/binary/pulsar-api.js";
import snappy from "snappyjs";

function entry(payload: string, meta: Record<string, unknown> = {}): Buffer {
  const data = Buffer.from(payload);
  const encoded = SingleMessageMetadata.encode(SingleMessageMetadata.fromObject({ payload_size: data.length, ...meta })).finish();
  const size = Buffer.alloc(4);
  size.writeUInt32BE(encoded.length);
  return Buffer.concat([size, encoded, data]);
}

describe("batched messages (SingleMessageMetadata)", () => {
  it("unpacks payloads, properties and keys, and marks compacted-out and null values to skip", () => {
    const batch = Buffer.concat([
      entry("first", { properties: [{ key: "id", value: "1" }], partition_key: "k1" }),
      entry("", { compacted_out: true }),
      entry("third", { partition_key: Buffer.from("bytes-key").toString("base64"), partition_key_b64_encoded: true }),
    ]);
    const messages = unpackBatch(batch, 3);
    expect(messages.map((m) => [m.index, m.payload.toString(), m.key, m.skip])).toEqual([
      [0, "first", "k1", false],
      [1, "", undefined, true],
      [2, "third", "bytes-key", false],
    ]);
    expect(messages[0]!.properties).toEqual([{ key: "id", value: "1" }]);
  });

  it("refuses a batch shorter than it claims", () => {
    const batch = entry("only one");
    expect(() => unpackBatch(batch, 2)).toThrow(BatchFormatError);
    expect(() => unpackBatch(batch.subarray(0, batch.length - 2), 1)).toThrow(/payload .* runs past the batch/);
  });
});

describe("decompression", () => {
  const text = Buffer.from("toolmesh ".repeat(6));

  it("undoes zlib, Snappy, zstd and LZ4 as Pulsar's producers apply them", () => {
    expect(decompress(CompressionType.ZLIB, deflateSync(text), text.length)).toEqual(text);
    expect(decompress(CompressionType.SNAPPY, Buffer.from(snappy.compress(text)), text.length)).toEqual(text);
    // `printf 'toolmesh ...!' | zstd`: a zstd frame as Java's and C++'s producers write it.
    const zstdFrame = Buffer.from("28b52ffd045885000050746f6f6c6d65736820210100d12c47d61d7327", "hex");
    expect(decompress(CompressionType.ZSTD, zstdFrame, 54).toString()).toBe("toolmesh toolmesh toolmesh toolmesh toolmesh toolmesh!");
    // An LZ4 raw block: 9 literals, then a 45-byte match at offset 9.
    const lz4Block = Buffer.concat([Buffer.from([0x9f]), Buffer.from("toolmesh "), Buffer.from([9, 0, 26, 0])]);
    expect(decompress(CompressionType.LZ4, lz4Block, 54)).toEqual(text);
  });

  it("refuses corrupt data, a wrong size and an unknown codec", () => {
    expect(() => decompress(CompressionType.ZLIB, Buffer.from("not zlib"), 10)).toThrow(DecompressionError);
    expect(() => decompress(CompressionType.ZLIB, deflateSync(text), 10)).toThrow(DecompressionError);
    expect(() => decompress(99, text, text.length)).toThrow(/unknown compression type 99/);
  });
});

describe("message ids", () => {
  it("round-trip ledger:entry:partition:batchIndex, with ids beyond 2^53 kept exact", () => {
    const id = { ledgerId: "9007199254740993", entryId: "12", partition: -1, batchIndex: 4 };
    expect(formatMessageId(id)).toBe("9007199254740993:12:-1:4");
    expect(parseMessageId(formatMessageId(id))).toEqual(id);
    expect(parseMessageId("340:0:2:-1")).toEqual({ ledgerId: "340", entryId: "0", partition: 2, batchIndex: -1 });
  });

  it("rejects what is not one (a WebSocket transport id, junk)", () => {
    expect(parseMessageId("CAEQAA==")).toBeUndefined();
    expect(parseMessageId("1:2:3")).toBeUndefined();
    expect(parseMessageId("a:b:c:d")).toBeUndefined();
  });
});
