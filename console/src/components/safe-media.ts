// What the console shows as media: only these types, only as `data:` URLs built from base64 that is
// checked to be base64 (so nothing else can end up in the URL). SVG is not among them: it can carry script.
const IMAGE_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
  'image/bmp',
]);
const AUDIO_TYPES = new Set([
  'audio/wav',
  'audio/x-wav',
  'audio/wave',
  'audio/mpeg',
  'audio/mp3',
  'audio/ogg',
  'audio/webm',
  'audio/mp4',
  'audio/aac',
  'audio/flac',
]);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function dataUrl(types: ReadonlySet<string>, mimeType: unknown, data: unknown): string | undefined {
  if (typeof mimeType !== 'string' || typeof data !== 'string') return undefined;
  const type = mimeType.trim().toLowerCase();
  if (!types.has(type) || data.length % 4 !== 0 || !BASE64.test(data)) return undefined;
  return `data:${type};base64,${data}`;
}

/** A `data:` URL for an image of an allowed type, or undefined. */
export const imageUrl = (mimeType: unknown, data: unknown) => dataUrl(IMAGE_TYPES, mimeType, data);

/** A `data:` URL for audio of an allowed type, or undefined. */
export const audioUrl = (mimeType: unknown, data: unknown) => dataUrl(AUDIO_TYPES, mimeType, data);

/** An icon's `data:` URL when it is one of an allowed image type, else undefined (no fetch elsewhere). */
export function iconUrl(src: unknown): string | undefined {
  if (typeof src !== 'string') return undefined;
  const match = /^data:([a-z0-9.+/-]+);base64,(.*)$/i.exec(src);
  return match ? imageUrl(match[1], match[2]) : undefined;
}

/** The URL when it is http(s), else undefined: the only links the console makes. */
export function webUrl(uri: unknown): string | undefined {
  if (typeof uri !== 'string') return undefined;
  try {
    const url = new URL(uri);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
