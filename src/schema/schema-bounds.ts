/**
 * Size bounds checked before a JSON Schema is compiled, so a hostile schema (for example one received from
 * a server in `tools/list`) cannot exhaust the stack or the CPU of the compiler.
 * @module
 */
import { LocalErrorCode } from '../protocol/errors.js';
import { SchemaError } from './schema-error.js';

/** The deepest nesting of objects and arrays allowed in a schema (the root object is level 1). */
export const MAX_SCHEMA_DEPTH = 64;

/** The most objects and arrays (subschemas, `properties` maps, `anyOf` lists, ...) allowed in a schema. */
export const MAX_SCHEMA_NODES = 10_000;

/**
 * The most regular expressions (`pattern` values, `patternProperties` keys) allowed in a schema: ajv's
 * compilation time grows with the square of their number (4,000 took 6-10 s of blocked event loop; 256 take
 * a few ms).
 */
export const MAX_SCHEMA_PATTERNS = 256;

/**
 * Walks `schema` without recursion and throws when it is nested deeper than {@link MAX_SCHEMA_DEPTH} levels,
 * holds more than {@link MAX_SCHEMA_NODES} objects and arrays, or more than {@link MAX_SCHEMA_PATTERNS} regular
 * expressions (counted wherever a `pattern` key has a string, and a `patternProperties` key an object).
 * Cyclic objects hit the depth bound.
 *
 * @throws {SchemaError} `INVALID_SCHEMA`
 */
export function assertSchemaBounds(
  schema: unknown,
  limits: { maxDepth?: number; maxNodes?: number; maxPatterns?: number } = {},
): void {
  const maxDepth = limits.maxDepth ?? MAX_SCHEMA_DEPTH;
  const maxNodes = limits.maxNodes ?? MAX_SCHEMA_NODES;
  const maxPatterns = limits.maxPatterns ?? MAX_SCHEMA_PATTERNS;
  const stack: [value: unknown, depth: number][] = [[schema, 1]];
  let nodes = 0;
  let patterns = 0;
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [value, depth] = item;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > maxDepth) {
      throw new SchemaError(LocalErrorCode.InvalidSchema, `schema is nested deeper than ${maxDepth} levels`);
    }
    if (++nodes > maxNodes) {
      throw new SchemaError(
        LocalErrorCode.InvalidSchema,
        `schema has more than ${maxNodes} nodes (objects and arrays)`,
      );
    }
    if (!Array.isArray(value)) {
      const { pattern, patternProperties } = value as Record<string, unknown>;
      if (typeof pattern === 'string') patterns += 1;
      if (typeof patternProperties === 'object' && patternProperties !== null) {
        patterns += Object.keys(patternProperties).length;
      }
      if (patterns > maxPatterns) {
        throw new SchemaError(
          LocalErrorCode.InvalidSchema,
          `schema has more than ${maxPatterns} regular expressions (pattern, patternProperties)`,
        );
      }
    }
    const children: unknown[] = Array.isArray(value) ? value : Object.values(value);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
}
