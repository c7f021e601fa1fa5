import { crc32c } from "@node-rs/crc32";
import type { BaseCommandData, MessageMetadataData } from "./commands.js";
import { BaseCommand, MessageMetadata } from "./pulsar-api.js";

/** Marks a payload frame's checksummed part; 0x0e02 marks broker entry metadata in front of it. */
const MAGIC_CRC32C = 0x0e01;
const MAGIC_BROKER_ENTRY_METADATA = 0x0e02;

/** A frame this side cannot read: the connection is dropped and made again. */
export class FrameError extends Error {
  override name = "FrameError";
}

export interface Frame {
  command: BaseCommandData;
  /** Present on MESSAGE frames. */
  metadata?: MessageMetadataData;
  payload?: Buffer;
  /** False when the payload part's CRC32C does not match its content. */
  checksumValid?: boolean;
}

// Commands are plain objects encoded as they are (no fromObject: its conversions cost more than the
// encoding on the hot path). uint64 fields take numbers or Longs; see toEntryIdData for ids as strings.

/** [totalSize][commandSize][command]. */
export function encodeCommand(command: object): Buffer {
  const body = BaseCommand.encode(command).finish();
  const frame = Buffer.allocUnsafe(8 + body.length);
  frame.writeUInt32BE(4 + body.length, 0);
  frame.writeUInt32BE(body.length, 4);
  frame.set(body, 8);
  return frame;
}

/** The metadata's encoded size; sends check it against the broker's limit before encoding the frame. */
export function encodeMetadata(metadata: object): Uint8Array {
  return MessageMetadata.encode(metadata).finish();
}

/** [totalSize][commandSize][command][0x0e01][crc32c][metadataSize][metadata][payload]. */
export function encodePayloadCommand(command: object, metadata: Uint8Array, payload: Buffer): Buffer {
  const body = BaseCommand.encode(command).finish();
  const checksummed = 4 + metadata.length + payload.length;
  const frame = Buffer.allocUnsafe(8 + body.length + 6 + checksummed);
  let at = 0;
  frame.writeUInt32BE(4 + body.length + 6 + checksummed, at);
  frame.writeUInt32BE(body.length, (at += 4));
  frame.set(body, (at += 4));
  frame.writeUInt16BE(MAGIC_CRC32C, (at += body.length));
  const crcAt = (at += 2);
  frame.writeUInt32BE(metadata.length, (at += 4));
  frame.set(metadata, (at += 4));
  payload.copy(frame, at + metadata.length);
  frame.writeUInt32BE(crc32c(frame.subarray(crcAt + 4)) >>> 0, crcAt);
  return frame;
}

/** Reads one frame body (everything after totalSize). */
export function decodeFrame(body: Buffer): Frame {
  if (body.length < 4) throw new FrameError(`frame of ${body.length} bytes has no command size`);
  const commandSize = body.readUInt32BE(0);
  if (commandSize > body.length - 4) throw new FrameError(`command size ${commandSize} exceeds the frame (${body.length} bytes)`);
  let command: BaseCommandData;
  try {
    command = BaseCommand.decode(body.subarray(4, 4 + commandSize)) as unknown as BaseCommandData;
  } catch (err) {
    throw new FrameError(`undecodable command: ${(err as Error).message}`);
  }
  let at = 4 + commandSize;
  if (at === body.length) return { command };

  if (body.length - at >= 2 && body.readUInt16BE(at) === MAGIC_BROKER_ENTRY_METADATA) {
    if (body.length - at < 6) throw new FrameError("truncated broker entry metadata");
    at += 6 + body.readUInt32BE(at + 2);
  }
  if (body.length - at < 10 || body.readUInt16BE(at) !== MAGIC_CRC32C) {
    throw new FrameError(`payload part of a ${String(command.type)} command lacks the 0x0e01 checksum header`);
  }
  const expected = body.readUInt32BE(at + 2);
  const checksummed = body.subarray(at + 6);
  const metadataSize = checksummed.readUInt32BE(0);
  if (metadataSize > checksummed.length - 4) throw new FrameError(`metadata size ${metadataSize} exceeds the frame`);
  let metadata: MessageMetadataData;
  try {
    metadata = MessageMetadata.decode(checksummed.subarray(4, 4 + metadataSize)) as unknown as MessageMetadataData;
  } catch (err) {
    throw new FrameError(`undecodable message metadata: ${(err as Error).message}`);
  }
  return {
    command,
    metadata,
    payload: checksummed.subarray(4 + metadataSize),
    checksumValid: crc32c(checksummed) >>> 0 === expected,
  };
}

/**
 * Splits the byte stream from a broker into frames. Chunks are kept as they come and joined once per
 * frame, so a 5 MiB message arriving in 64 KiB reads is copied once, not eighty times.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  /** @param maxFrameSize frames announcing more are refused (the broker's limit plus room for headers). */
  constructor(private maxFrameSize: () => number) {}

  /** Appends bytes and returns every complete frame; throws FrameError on a frame it cannot read. */
  push(chunk: Buffer): Frame[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const frames: Frame[] = [];
    while (this.buffered >= 4) {
      const head = this.peek(4);
      const totalSize = head.readUInt32BE(0);
      if (totalSize > this.maxFrameSize()) throw new FrameError(`frame of ${totalSize} bytes exceeds the limit of ${this.maxFrameSize()}`);
      if (this.buffered < 4 + totalSize) break;
      const frame = this.take(4 + totalSize);
      frames.push(decodeFrame(frame.subarray(4)));
    }
    return frames;
  }

  private peek(size: number): Buffer {
    if (this.chunks[0]!.length < size) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0]!;
  }

  private take(size: number): Buffer {
    const first = this.chunks[0]!;
    let out: Buffer;
    if (first.length >= size) {
      out = first.subarray(0, size);
      if (first.length === size) this.chunks.shift();
      else this.chunks[0] = first.subarray(size);
    } else {
      const joined = Buffer.concat(this.chunks);
      out = joined.subarray(0, size);
      this.chunks = joined.length > size ? [joined.subarray(size)] : [];
    }
    this.buffered -= size;
    return out;
  }
}
