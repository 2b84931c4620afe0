/**
 * The digest a pending approval is bound to and an audit record names: `sha256:<hex>` of the arguments'
 * canonical JSON (keys sorted at every level), the same as the client's `argumentsDigest`, computed
 * synchronously (a call's audit record needs it on the hot path).
 * @module
 */
import { createHash } from 'node:crypto';
import { canonicalJson, type JsonObject } from '../index.js';

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
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}
