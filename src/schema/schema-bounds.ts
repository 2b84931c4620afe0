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
 * Walks `schema` without recursion and throws when it is nested deeper than {@link MAX_SCHEMA_DEPTH} levels or
 * holds more than {@link MAX_SCHEMA_NODES} objects and arrays. Cyclic objects hit the depth bound.
 *
 * @throws {SchemaError} `INVALID_SCHEMA`
 */
export function assertSchemaBounds(
  schema: unknown,
  limits: { maxDepth?: number; maxNodes?: number } = {},
): void {
  const maxDepth = limits.maxDepth ?? MAX_SCHEMA_DEPTH;
  const maxNodes = limits.maxNodes ?? MAX_SCHEMA_NODES;
  const stack: [value: unknown, depth: number][] = [[schema, 1]];
  let nodes = 0;
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
    const children: unknown[] = Array.isArray(value) ? value : Object.values(value);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
}
