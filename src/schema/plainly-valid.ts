/**
 * A conservative check that a JSON Schema is valid against its dialect's meta-schema, for the simple
 * schemas most tools declare (`type`, `properties`, `required`, bounds, `enum`, annotations).
 *
 * ajv validates every schema against the meta-schema before compiling it, and the first time it does so
 * it compiles the meta-schema itself: most of a server's cold start spent in ajv. When this check answers
 * `true` the schema is certainly valid in draft-07, 2019-09 and 2020-12 alike, so that step can be skipped
 * with the same result. Anything it does not know (`$ref`, `pattern`, combinators, …) answers `false` and
 * goes the full way.
 * @module
 */

const SIMPLE_TYPES = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);

const isString = (value: unknown): boolean => typeof value === 'string';
const isBoolean = (value: unknown): boolean => typeof value === 'boolean';
const isNumber = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value);
const isCount = (value: unknown): boolean => Number.isInteger(value) && (value as number) >= 0;
const isArray = (value: unknown): boolean => Array.isArray(value);
const anything = (): boolean => true;

function isType(value: unknown): boolean {
  if (typeof value === 'string') return SIMPLE_TYPES.has(value);
  if (!Array.isArray(value) || value.length === 0) return false;
  return value.every((t) => typeof t === 'string' && SIMPLE_TYPES.has(t)) && unique(value as string[]);
}

function isRequired(value: unknown): boolean {
  return Array.isArray(value) && value.every(isString) && unique(value as string[]);
}

function unique(list: readonly string[]): boolean {
  return new Set(list).size === list.length;
}

function isProperties(value: unknown, depth: number): boolean {
  if (!isPlainObject(value)) return false;
  for (const key in value) if (!isPlainlyValid(value[key], depth + 1)) return false;
  return true;
}

/** The keywords checked here, with the same meta-schema rule in the three dialects. */
const KEYWORDS: Record<string, (value: unknown, depth: number) => boolean> = {
  type: isType,
  properties: isProperties,
  required: isRequired,
  additionalProperties: (value, depth) => isPlainlyValid(value, depth + 1),
  items: (value, depth) => isPlainlyValid(value, depth + 1),
  enum: isArray,
  const: anything,
  default: anything,
  examples: isArray,
  title: isString,
  description: isString,
  $comment: isString,
  format: isString,
  readOnly: isBoolean,
  writeOnly: isBoolean,
  minimum: isNumber,
  maximum: isNumber,
  exclusiveMinimum: isNumber,
  exclusiveMaximum: isNumber,
  multipleOf: (value) => isNumber(value) && (value as number) > 0,
  minLength: isCount,
  maxLength: isCount,
  minItems: isCount,
  maxItems: isCount,
  minProperties: isCount,
  maxProperties: isCount,
  uniqueItems: isBoolean,
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Whether `schema` (without `$schema`) is certainly valid against the draft-07, 2019-09 and 2020-12
 * meta-schemas. `false` means "not known", not "invalid". Keywords starting with `x-` are extensions no
 * meta-schema constrains.
 */
export function isPlainlyValid(schema: unknown, depth = 1): boolean {
  if (typeof schema === 'boolean') return true;
  if (depth > 16 || !isPlainObject(schema)) return false;
  for (const key in schema) {
    const check = Object.hasOwn(KEYWORDS, key) ? KEYWORDS[key] : undefined;
    if (check === undefined) {
      if (key.startsWith('x-')) continue;
      return false;
    }
    if (!check(schema[key], depth)) return false;
  }
  return true;
}
