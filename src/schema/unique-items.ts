/**
 * `uniqueItems` in linear time. ajv compares every pair of items that are not all of one primitive type
 * with a deep equality: 30,000 objects took it 36 s. Here each item's canonical JSON (keys sorted) goes
 * into a Map, so equal items (whatever their key order; `1` and `1.0` alike) meet in time linear in the
 * size of the array. The error is ajv's: `must NOT have duplicate items (items ## 1 and 3 are identical)`.
 * @module
 */
import type { FuncKeywordDefinition, SchemaValidateFunction } from 'ajv';
import { canonicalJson } from '../protocol/canonical-json.js';

const validate: SchemaValidateFunction = (schema: unknown, data: unknown): boolean => {
  if (schema !== true || !Array.isArray(data)) return true;
  // Strings, numbers, booleans and null are keys themselves (a Map finds `1` and `1.0` equal, `1` and `'1'`
  // not); objects and arrays go by their canonical JSON, in a map of their own.
  const primitives = new Map<unknown, number>();
  const composites = new Map<string, number>();
  for (let i = 0; i < data.length; i++) {
    const item: unknown = data[i];
    const composite = typeof item === 'object' && item !== null;
    const key = composite ? canonicalJson(item) : item;
    const seen = composite ? composites : primitives;
    const j = seen.get(key);
    if (j !== undefined) {
      // ajv's params: `i` the later item, `j` the earlier one.
      const message = `must NOT have duplicate items (items ## ${j} and ${i} are identical)`;
      validate.errors = [{ keyword: 'uniqueItems', message, params: { i, j } }];
      return false;
    }
    seen.set(key, i);
  }
  return true;
};

/** Replaces ajv's `uniqueItems` (`ajv.removeKeyword('uniqueItems')` first). */
export const uniqueItemsKeyword: FuncKeywordDefinition = {
  keyword: 'uniqueItems',
  type: 'array',
  schemaType: 'boolean',
  errors: true,
  validate,
};
