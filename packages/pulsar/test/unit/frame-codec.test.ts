import { crc32c } from "@node-rs/crc32";
import { describe, expect, it } from "vitest";
import { decodeFrame, encodeCommand, encodeMetadata, encodePayloadCommand, FrameError, FrameReader } from "../../src/binary/frame-codec.js";
import { CommandType } from "../../src/binary/pulsar-api.js";

const ping = encodeCommand({ type: CommandType.PING, ping: {} });
const metadata = encodeMetadata({
  producer_name: "p",
  sequence_id: 7,
  publish_time: 1_700_000_000_000,
  properties: [{ key: "id", value: "x" }],
});
const send = encodePayloadCommand({ type: CommandType.SEND, send: { producer_id: 3, sequence_id: 7 } }, metadata, Buffer.from("payload"));

describe("CRC32C (Castagnoli), as Pulsar checksums payloads", () => {
  it("matches the standard check values", () => {
    expect(crc32c(Buffer.from("123456789")) >>> 0).toBe(0xe3069283);
    expect(crc32c(Buffer.alloc(32, 0)) >>> 0).toBe(0x8a9136aa);
    expect(crc32c(Buffer.alloc(32, 0xff)) >>> 0).toBe(0x62a8ab43);
  });
});

describe("frames", () => {
  it("encodes a simple command as [totalSize][commandSize][command]", () => {
    expect(ping.readUInt32BE(0)).toBe(ping.length - 4);
    expect(ping.readUInt32BE(4)).toBe(ping.length - 8);
    expect(decodeFrame(ping.subarray(4)).command.type).toBe(CommandType.PING);
  });

  it("encodes a payload command with magic 0x0e01 and a CRC32C over metadata size, metadata and payload", () => {
    const commandSize = send.readUInt32BE(4);
    const at = 8 + commandSize;
    expect(send.readUInt16BE(at)).toBe(0x0e01);
    expect(send.readUInt32BE(at + 2)).toBe(crc32c(send.subarray(at + 6)) >>> 0);
    const frame = decodeFrame(send.subarray(4));
    expect(frame.command.type).toBe(CommandType.SEND);
    expect(frame.payload?.toString()).toBe("payload");
    expect(frame.metadata?.properties).toEqual([{ key: "id", value: "x" }]);
    expect(frame.checksumValid).toBe(true);
  });

  it("flags a payload whose checksum does not match", () => {
    const corrupt = Buffer.from(send);
    corrupt.writeUInt8(corrupt.readUInt8(corrupt.length - 1) ^ 0xff, corrupt.length - 1);
    expect(decodeFrame(corrupt.subarray(4)).checksumValid).toBe(false);
  });

  it("reassembles frames split across reads and several frames in one read", () => {
    const reader = new FrameReader(() => 1024);
    const stream = Buffer.concat([ping, send, ping]);
    const frames = [];
    for (let i = 0; i < stream.length; i += 5) frames.push(...reader.push(stream.subarray(i, i + 5)));
    expect(frames.map((f) => f.command.type)).toEqual([CommandType.PING, CommandType.SEND, CommandType.PING]);
    expect(new FrameReader(() => 1024).push(stream)).toHaveLength(3);
  });

  it("refuses frames that lie about their size or cannot be decoded", () => {
    expect(() => new FrameReader(() => 100).push(Buffer.from([0, 0, 1, 0]))).toThrow(/frame of 256 bytes exceeds the limit of 100/);
    expect(() => decodeFrame(Buffer.from([0, 0, 3, 232, 1, 2]))).toThrow(/command size 1000 exceeds the frame/);
    expect(() => decodeFrame(Buffer.from([0, 0, 0, 2, 0xff, 0xff]))).toThrow(FrameError);
    const noMagic = Buffer.concat([ping.subarray(4), Buffer.alloc(12)]);
    noMagic.writeUInt32BE(ping.length - 8, 0);
    expect(() => decodeFrame(noMagic)).toThrow(/lacks the 0x0e01 checksum header/);
  });
});
