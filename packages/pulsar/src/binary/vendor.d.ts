// Type declarations for the two decompressors that ship none.
declare module "lz4js" {
  /** Decompresses one raw LZ4 block into dst; returns the index after the last byte written. */
  export function decompressBlock(src: Uint8Array, dst: Uint8Array, sIndex: number, sLength: number, dIndex: number): number;
  const lz4: { decompressBlock: typeof decompressBlock };
  export default lz4;
}

declare module "snappyjs" {
  export function uncompress(compressed: Uint8Array, maxLength?: number): Uint8Array;
  export function compress(input: Uint8Array): Uint8Array;
  const snappy: { uncompress: typeof uncompress; compress: typeof compress };
  export default snappy;
}
