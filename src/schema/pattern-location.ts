/**
 * Where a refused pattern sits in a schema, for the error that names it: ajv hands the regular expression
 * engine the pattern alone, so the schema is searched for it afterwards.
 * @module
 */
import { escapePointerToken } from './json-schema.js';

/** Keywords whose values are data, not subschemas: a `pattern` inside them is not a pattern. */
const DATA_KEYWORDS = new Set(['const', 'default', 'enum', 'examples']);

/** Keywords whose values map names to subschemas (a property may be called `pattern` or `const`). */
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/**
 * The JSON Pointer of the first `pattern` keyword with this value, or of the `patternProperties` key that is
 * this pattern (depth first, in key order); undefined when neither is found. The schema is already bounded
 * (`assertSchemaBounds`), so the walk is too.
 */
export function patternLocation(schema: unknown, pattern: string): string | undefined {
  const stack: [value: unknown, path: string, names: boolean][] = [[schema, '', false]];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [value, path, names] = item;
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], `${path}/${i}`, false]);
      continue;
    }
    const object = value as Record<string, unknown>;
    if (!names && object.pattern === pattern) return `${path}/pattern`;
    const patterns = names ? undefined : object.patternProperties;
    if (typeof patterns === 'object' && patterns !== null && Object.hasOwn(patterns, pattern)) {
      return `${path}/patternProperties/${escapePointerToken(pattern)}`;
    }
    const keys = Object.keys(object);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      if (names || !DATA_KEYWORDS.has(key)) {
        stack.push([object[key], `${path}/${escapePointerToken(key)}`, !names && NAME_MAPS.has(key)]);
      }
    }
  }
  return undefined;
}
