/**
 * The text the digest a pending approval is bound to and an audit record names is of: the arguments'
 * canonical JSON (keys sorted at every level). Its `digestOfText` is the client's `argumentsDigest`, computed
 * synchronously.
 * @module
 */
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
 * The arguments' canonical JSON: the native `JSON.stringify` when the keys are in order already, as most
 * arguments' are.
 */
export function canonicalArguments(args: JsonObject): string {
  return sortedKeys(args) ? JSON.stringify(args) : canonicalJson(args);
}
