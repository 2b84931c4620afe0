/**
 * The length of a value's JSON text, estimated without writing it: what the engine counts of the answers
 * it holds (a JSON-RPC batch's answers wait for the last of them) and of the answers it sends.
 * @module
 */

/**
 * About as many characters as `JSON.stringify(value)` has: exact for strings without characters to escape,
 * integers, booleans and null, within a few characters for other numbers. Time linear in the number of
 * values (a string counts once, whatever its length); no recursion, so any depth is fine.
 */
export function jsonSize(value: unknown): number {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    switch (typeof item) {
      case 'string':
        size += item.length + 2;
        break;
      case 'number':
        size += Number.isInteger(item) && Math.abs(item) < 1e15 ? String(item).length : 20;
        break;
      case 'boolean':
        size += item ? 4 : 5;
        break;
      case 'object':
        if (item === null) size += 4;
        else if (Array.isArray(item)) {
          size += 1 + Math.max(item.length, 1);
          for (const element of item) stack.push(element);
        } else {
          size += 2;
          for (const key in item) {
            const field = (item as Record<string, unknown>)[key];
            if (field === undefined || typeof field === 'function') continue;
            size += key.length + 4; // "key":,
            stack.push(field);
          }
        }
        break;
      case 'bigint': // JSON.stringify throws on it; the transport says so
      case 'function':
      case 'symbol':
      case 'undefined': // no text, or `null` in an array
        size += 4;
    }
  }
  return size;
}
