/**
 * A small PNG built from bytes, with no image library: a 16x16 RGBA gradient, so clients of the
 * demo see a real image result. PNG = signature + IHDR + IDAT (zlib-deflated scanlines) + IEND,
 * each chunk with a CRC-32.
 * @module
 */
import { deflateSync } from 'node:zlib';

const SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);

let crcTable: Uint32Array | undefined;

/** CRC-32 (ISO-HDLC, as PNG and zlib use it). */
export function crc32(bytes: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const byte of bytes) crc = crcTable[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  out.set(data, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** An RGBA PNG of `size`x`size` pixels: a diagonal blue-to-orange gradient. */
export function tinyPng(size = 16): Uint8Array {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0); // width
  header.writeUInt32BE(size, 4); // height
  header[8] = 8; // bit depth
  header[9] = 6; // colour type: RGBA
  // compression, filter and interlace methods: 0

  const stride = 1 + size * 4; // a filter byte (0: none), then the pixels
  const raw = Buffer.alloc(stride * size);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const t = (x + y) / Math.max(1, 2 * (size - 1));
      const offset = y * stride + 1 + x * 4;
      raw[offset] = Math.round(30 + 225 * t); // red
      raw[offset + 1] = Math.round(110 + 40 * t); // green
      raw[offset + 2] = Math.round(230 - 200 * t); // blue
      raw[offset + 3] = 255; // alpha
    }
  }
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', new Uint8Array(0)),
  ]);
}
