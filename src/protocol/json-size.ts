/**
 * The length of a value's JSON text, estimated without writing it: what the engine counts of the answers
 * it holds (a JSON-RPC batch's answers wait for the last of them) and of the answers it sends.
 * @module
 */

/** Levels walked by recursion (fast); deeper parts are walked with a stack of their own. */
const RECURSION = 32;

/**
 * About as many characters as `JSON.stringify(value)` has: exact for strings without characters to escape,
 * integers, booleans and null, within a few characters for other numbers. Time linear in the number of
 * values (a string counts once, whatever its length); any depth (recursion stops at 32 levels).
 */
export function jsonSize(value: unknown): number {
  return sizeOf(value, 0);
}

function sizeOf(value: unknown, depth: number): number {
  if (typeof value === 'string') return value.length + 2;
  if (typeof value !== 'object' || value === null) return scalarSize(value);
  if (depth >= RECURSION) return deepSize(value);
  if (Array.isArray(value)) {
    const items = value as unknown[];
    let size = items.length === 0 ? 2 : 1 + items.length; // brackets and commas
    for (let i = 0; i < items.length; i++) size += sizeOf(items[i], depth + 1);
    return size;
  }
  let size = 1; // the opening brace; each field adds its comma or the closing brace
  const record = value as Record<string, unknown>;
  // for-in, not Object.keys: no array per object (a plain object has no inherited enumerable keys).
  for (const key in record) {
    const field = record[key];
    if (field === undefined || typeof field === 'function') continue;
    size += key.length + 4 + sizeOf(field, depth + 1); // "key":…,
  }
  return size === 1 ? 2 : size;
}

/** The same, with a stack instead of recursion: for what is nested deeper than {@link RECURSION}. */
function deepSize(value: object): number {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item !== 'object' || item === null) {
      size += typeof item === 'string' ? item.length + 2 : scalarSize(item);
    } else if (Array.isArray(item)) {
      size += item.length === 0 ? 2 : 1 + item.length;
      for (const element of item as unknown[]) stack.push(element);
    } else {
      let fields = 1;
      const record = item as Record<string, unknown>;
      for (const key in record) {
        const field = record[key];
        if (field === undefined || typeof field === 'function') continue;
        fields += key.length + 4;
        stack.push(field);
      }
      size += fields === 1 ? 2 : fields;
    }
  }
  return size;
}

/** A number, boolean or null; what has no JSON text (undefined, a function, a symbol, a bigint) counts 4. */
function scalarSize(value: unknown): number {
  if (typeof value === 'number')
    return Number.isInteger(value) && Math.abs(value) < 1e15 ? String(value).length : 20;
  if (typeof value === 'boolean') return value ? 4 : 5;
  return 4;
}
