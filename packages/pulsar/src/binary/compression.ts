import { inflateSync } from "node:zlib";
import { decompress as zstdDecompress } from "fzstd";
import lz4 from "lz4js";
import snappy from "snappyjs";
import { CompressionType } from "./pulsar-api.js";

/** A payload that cannot be decompressed (unknown codec, corrupt data, wrong size). */
export class DecompressionError extends Error {
  override name = "DecompressionError";
}

/**
 * Undoes the producer's compression of a message (or of a whole batch). Pulsar's codecs: LZ4 raw block,
 * zlib stream, zstd frame, Snappy raw; `uncompressed_size` from the metadata sizes and checks the result.
 */
export function decompress(codec: number, payload: Buffer, uncompressedSize: number): Buffer {
  if (codec === CompressionType.NONE) return payload;
  let out: Buffer;
  try {
    switch (codec) {
      case CompressionType.LZ4: {
        const dst = Buffer.alloc(uncompressedSize);
        const written = lz4.decompressBlock(payload, dst, 0, payload.length, 0);
        if (written !== uncompressedSize) throw new Error(`LZ4 block gave ${written} bytes`);
        out = dst;
        break;
      }
      case CompressionType.ZLIB:
        out = inflateSync(payload, { maxOutputLength: Math.max(uncompressedSize, 1) });
        break;
      case CompressionType.ZSTD:
        out = Buffer.from(zstdDecompress(payload, new Uint8Array(uncompressedSize)));
        break;
      case CompressionType.SNAPPY:
        out = Buffer.from(snappy.uncompress(payload, uncompressedSize));
        break;
      default:
        throw new Error(`unknown compression type ${codec}`);
    }
  } catch (err) {
    throw new DecompressionError(`cannot decompress a message: ${(err as Error).message}`);
  }
  if (out.length !== uncompressedSize) {
    throw new DecompressionError(`decompressed to ${out.length} bytes, the metadata says ${uncompressedSize}`);
  }
  return out;
}
