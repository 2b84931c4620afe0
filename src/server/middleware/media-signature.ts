/**
 * Checks that the base64 data of an image or audio block decodes and starts with the magic bytes of its
 * declared MIME type (PNG, JPEG, GIF, WebP, WAV, MP3, Ogg). Types without a known signature pass
 * unchecked; a RIFF container (WAV, WebP) too short to name its form passes on its `RIFF` header alone.
 * @module
 */
import { isBase64 } from '../../protocol/types/content-checks.js';

type Signature = ReadonlyArray<readonly [offset: number, bytes: readonly number[]]>;

const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));
const RIFF = (form: string): Signature => [
  [0, ascii('RIFF')],
  [8, ascii(form)],
];

/** The accepted signatures per MIME type (any one of them matches). */
const SIGNATURES: ReadonlyMap<string, readonly Signature[]> = new Map([
  ['image/png', [[[0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]]]]],
  ['image/jpeg', [[[0, [0xff, 0xd8, 0xff]]]]],
  ['image/gif', [[[0, ascii('GIF87a')]], [[0, ascii('GIF89a')]]]],
  ['image/webp', [RIFF('WEBP')]],
  ['audio/wav', [RIFF('WAVE')]],
  ['audio/ogg', [[[0, ascii('OggS')]]]],
  ['audio/mpeg', [[[0, ascii('ID3')]], [[0, [0xff]]]]], // ID3 tag, or an MPEG frame sync (checked below)
]);

const ALIASES: ReadonlyMap<string, string> = new Map([
  ['image/jpg', 'image/jpeg'],
  ['image/pjpeg', 'image/jpeg'],
  ['audio/wave', 'audio/wav'],
  ['audio/x-wav', 'audio/wav'],
  ['audio/vnd.wave', 'audio/wav'],
  ['audio/mp3', 'audio/mpeg'],
  ['audio/mpeg3', 'audio/mpeg'],
  ['audio/x-mpeg-3', 'audio/mpeg'],
  ['audio/opus', 'audio/ogg'],
  ['audio/vorbis', 'audio/ogg'],
]);

/** The MIME type without parameters, lower case, aliases resolved (`audio/x-wav` → `audio/wav`). */
export function essence(mimeType: string): string {
  const bare = (mimeType.split(';')[0] ?? '').trim().toLowerCase();
  return ALIASES.get(bare) ?? bare;
}

/**
 * The first bytes of base64 data (at most 16), or undefined when `data` is not valid base64 (not checked
 * again when the caller says it was: `checked`).
 */
export function headBytes(data: string, checked = false): Uint8Array | undefined {
  if (!checked && !isBase64(data)) return undefined;
  const binary = atob(data.slice(0, 24));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** Bytes that `data` (valid base64) decodes to. */
export function decodedSize(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return (data.length / 4) * 3 - padding;
}

/**
 * Why the data does not match its type, or undefined when it does (or the type has no signature). `checked`:
 * the data is known to be valid base64 already (see `dataProblem`).
 */
export function mediaMismatch(data: string, mimeType: string, checked = false): string | undefined {
  const head = headBytes(data, checked);
  if (!head) return 'its data is not valid base64';
  const type = essence(mimeType);
  const signatures = SIGNATURES.get(type);
  if (!signatures) return undefined;
  const matches = signatures.some((signature) =>
    signature.every(([offset, bytes], i) => {
      // A RIFF container too short to carry its form type passes on the RIFF header alone.
      if (i > 0 && head.length < offset + bytes.length) return true;
      return bytes.every((byte, j) => head[offset + j] === byte);
    }),
  );
  const badFrameSync = type === 'audio/mpeg' && head[0] === 0xff && ((head[1] ?? 0) & 0xe0) !== 0xe0;
  if (matches && !badFrameSync) return undefined;
  return `its data is not ${type}`;
}
