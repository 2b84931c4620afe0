/**
 * The digest a pending approval is bound to and an audit record names: `sha256:<hex>` of the arguments'
 * canonical JSON (keys sorted at every level), the same as the client's `argumentsDigest`, computed
 * synchronously (a call's audit record needs it on the hot path).
 * @module
 */
import * as crypto from 'node:crypto';
import { canonicalJson, type JsonObject } from '../index.js';

/**
 * SHA-256 of a text, in hex: Node's one-shot `crypto.hash` where it exists (Node ≥ 20.12: no Hash object,
 * ≈0.7 µs for a call's arguments against ≈1.6 µs), else a Hash.
 */
const sha256Hex: (text: string) => string =
  typeof (crypto as { hash?: unknown }).hash === 'function'
    ? (text) => (crypto as unknown as { hash(algorithm: string, data: string): string }).hash('sha256', text)
    : (text) => crypto.createHash('sha256').update(text).digest('hex');

/** Whether every object in `value` has its keys in sorted order already (its JSON is then canonical). */
function sortedKeys(value: unknown, depth = 0): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (depth > 32) return false;
  if (Array.isArray(value)) return value.every((item) => sortedKeys(item, depth + 1));
  let previous: string | undefined;
  for (const key in value) {
    if (previous !== undefined && !(previous < key)) return false;
    previous = key;
    if (!sortedKeys((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

/**
 * `sha256:<hex>` of the arguments' canonical JSON (the client's `argumentsDigest`, computed synchronously):
 * the native `JSON.stringify` when the keys are in order already, as most arguments' are.
 */
export function digestOf(args: JsonObject): string {
  const text = sortedKeys(args) ? JSON.stringify(args) : canonicalJson(args);
  return `sha256:${sha256Hex(text)}`;
}
