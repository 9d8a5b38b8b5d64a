// lz4js ships no types: the two functions tradebot uses (LZ4 frames, as Arrow IPC compression writes them).
declare module 'lz4js' {
  export function compress(src: Uint8Array, maxSize?: number): Uint8Array;
  export function decompress(src: Uint8Array, maxSize?: number): Uint8Array;
  const lz4: { compress: typeof compress; decompress: typeof decompress };
  export default lz4;
}
