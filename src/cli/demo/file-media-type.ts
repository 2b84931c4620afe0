/**
 * Media types for the demo's files: images by extension (they are returned as image blocks),
 * a few text types for resource links, and a binary sniff for everything else.
 * @module
 */
import path from 'node:path';

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

const TEXT_TYPES: Readonly<Record<string, string>> = {
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.json': 'application/json',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.cjs': 'text/javascript',
  '.ts': 'text/x-typescript',
  '.html': 'text/html',
  '.css': 'text/css',
  '.csv': 'text/csv',
  '.xml': 'application/xml',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
};

/** The image media type of a file name (by extension), or undefined when it is not an image. */
export function imageMediaType(file: string): string | undefined {
  return IMAGE_TYPES[path.extname(file).toLowerCase()];
}

/** The media type of a file name when its extension is known, else undefined. */
export function mediaType(file: string): string | undefined {
  const ext = path.extname(file).toLowerCase();
  return IMAGE_TYPES[ext] ?? TEXT_TYPES[ext];
}

/** Bytes sniffed to tell text from binary. */
const SNIFF_BYTES = 8000;

/** A NUL byte in the first 8000 bytes means binary (the heuristic git uses). */
export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, SNIFF_BYTES);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}

/** A byte count for people: `512 B`, `3.2 KiB`, `1.5 MiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
