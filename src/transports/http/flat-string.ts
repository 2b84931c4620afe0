/**
 * One flat string for an id kept for a session's life.
 * @module
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A string as one flat string (for ids kept for a session's life): `crypto.randomUUID()` and template
 * literals build theirs by concatenation, a tree of ≈16 strings for a UUID, all held as long as it is.
 */
export function flatString(text: string): string {
  return decoder.decode(encoder.encode(text));
}
