/**
 * Nesting bounds of JSON read from a peer. `JSON.parse` reads any depth, but everything recursive after it
 * does not: a 100,000-deep array argument made validation, digests and `JSON.stringify` throw `Maximum call
 * stack size exceeded`, and that internal message went back to the client.
 * @module
 */

/**
 * The deepest nesting of objects and arrays in a value that is validated or handed to a tool: tool
 * arguments, structured content, anything checked against a schema (the value itself is level 1).
 */
export const MAX_VALUE_DEPTH = 64;

/**
 * The deepest nesting of a whole JSON-RPC message a peer accepts (the message object is level 1): room for
 * the envelope around a value of {@link MAX_VALUE_DEPTH} levels, and far below what exhausts the stack.
 */
export const MAX_MESSAGE_DEPTH = 128;

/**
 * Whether `value` holds objects or arrays nested deeper than `maxDepth` levels (a primitive is level 0, the
 * value itself level 1). Time linear in the size of the value, recursion at most `maxDepth` deep.
 */
export function isNestedDeeper(value: unknown, maxDepth: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (maxDepth <= 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (isNestedDeeper(item, maxDepth - 1)) return true;
    return false;
  }
  for (const key in value) {
    if (isNestedDeeper((value as Record<string, unknown>)[key], maxDepth - 1)) return true;
  }
  return false;
}
