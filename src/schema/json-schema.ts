/**
 * The plain JSON Schema object type and small helpers around it.
 * @module
 */

/** A JSON Schema object as it goes on the wire (any dialect; boolean schemas are not used by MCP). */
export type JsonSchema = { [key: string]: unknown };

/**
 * True for a plain object (`{...}` literal, `JSON.parse` result or `Object.create(null)`), the only shape a
 * {@link JsonSchema} can have. Class instances (such as zod schemas), arrays and `null` are rejected.
 */
export function isJsonSchemaObject(value: unknown): value is JsonSchema {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Escapes one JSON Pointer reference token (RFC 6901): `~` becomes `~0`, `/` becomes `~1`. */
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Joins path segments into a JSON Pointer: `['a', 0]` becomes `/a/0`, `[]` becomes `''`. */
export function toJsonPointer(segments: readonly (string | number)[]): string {
  let pointer = '';
  for (const segment of segments) pointer += `/${escapePointerToken(String(segment))}`;
  return pointer;
}
