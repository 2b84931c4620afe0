// A JSON Schema validator that interprets the schema (no code generation: the console's CSP forbids
// eval, which ajv needs). It covers what tools' schemas use — types, enum/const, numbers' bounds,
// strings' lengths/patterns/formats, arrays (items, prefixItems, bounds, uniqueness, contains),
// objects (properties, required, additional/pattern properties, bounds, dependentRequired),
// allOf/anyOf/oneOf/not, if/then/else, and local $ref ($defs, definitions, JSON pointers) — and answers
// with messages a person reads, each at the path of the value it is about. The gateway and the upstream
// check again: this is for messages before anything is sent.
//
// The schema comes from an upstream, which may be hostile: the work is bounded. Every schema node visited
// counts against a budget (MAX_STEPS), `not`, `if` and `contains` go one level deeper like every other
// keyword (so MAX_DEPTH stops a `$ref` cycle through them), and a pattern runs on re2js, a linear-time
// engine (loaded on first need, in its own file), never on the browser's backtracking RegExp. A schema too
// large to check here gives one issue of kind 'too-complex': it does not block a call (the gateway checks).
import { resolveRef, type Schema } from './schema.js';
import { pattern, patternsReady } from './linear-pattern.js';

export { patternsReady };

export interface Issue {
  /** A JSON pointer to the value: '' is the whole, '/address/city' a field. */
  path: string;
  message: string;
  /** 'too-complex': not a problem of the value, but a check that stopped (the gateway checks). */
  kind?: 'too-complex';
}

const MAX_DEPTH = 64;
/** Schema nodes one validation visits at most. */
export const MAX_STEPS = 100_000;
export const TOO_COMPLEX = 'this schema is too complex to check here (the gateway checks it)';

interface Run {
  root: Schema | undefined;
  steps: number;
}

export function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function hasType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
}

/** Structural equality of JSON values. */
export function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

const FORMATS: Record<string, [RegExp, string]> = {
  email: [/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'an email address'],
  date: [/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, 'a date (YYYY-MM-DD)'],
  time: [
    /^([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/i,
    'a time (HH:MM:SSZ)',
  ],
  'date-time': [
    /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/i,
    'a date and time (YYYY-MM-DDTHH:MM:SSZ)',
  ],
  uuid: [/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'a UUID'],
  ipv4: [/^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/, 'an IPv4 address'],
  hostname: [
    /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i,
    'a host name',
  ],
};

function formatProblem(format: string, value: string): string | undefined {
  if (format === 'uri' || format === 'url' || format === 'uri-reference' || format === 'iri') {
    if (format === 'uri-reference') return undefined;
    try {
      new URL(value);
      return undefined;
    } catch {
      return 'must be an absolute URI (such as https://example.com/)';
    }
  }
  if (format === 'ipv6')
    return value.includes(':') && /^[0-9a-f:.]+$/i.test(value) ? undefined : 'must be an IPv6 address';
  if (format === 'regex') {
    try {
      new RegExp(value, 'u');
      return undefined;
    } catch {
      return 'must be a regular expression';
    }
  }
  const known = FORMATS[format];
  if (!known) return undefined; // unknown formats are annotations
  return known[0].test(value) ? undefined : `must be ${known[1]}`;
}

const list = (values: readonly unknown[]) => values.map((v) => JSON.stringify(v)).join(', ');
const chars = (text: string) => [...text].length;

/** Every problem of `value` against `schema` (an empty list: valid). `root` resolves `$ref`s. */
export function validate(
  schema: Schema | undefined,
  value: unknown,
  root: Schema | undefined = schema,
): Issue[] {
  const issues: Issue[] = [];
  const run: Run = { root, steps: 0 };
  check(schema, value, run, '', issues, 0);
  if (run.steps > MAX_STEPS) return [{ path: '', message: TOO_COMPLEX, kind: 'too-complex' }];
  return issues;
}

/** The issues that are the value's (not a check that stopped). */
export function blocking(issues: readonly Issue[]): Issue[] {
  return issues.filter((issue) => issue.kind === undefined);
}

function check(
  schema: Schema | undefined,
  value: unknown,
  run: Run,
  path: string,
  out: Issue[],
  depth: number,
): void {
  if (schema === undefined || schema === true) return;
  if (++run.steps > MAX_STEPS) return;
  if (schema === false) return void out.push({ path, message: 'is not allowed' });
  if (depth > MAX_DEPTH || typeof schema !== 'object' || schema === null) return;
  const issue = (message: string, at = path) => out.push({ path: at, message });
  if (typeof schema.$ref === 'string') {
    const target = resolveRef(run.root, schema.$ref);
    if (target !== undefined) check(target, value, run, path, out, depth + 1);
  }
  const types =
    schema.type === undefined ? undefined : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types && !types.some((t) => typeof t === 'string' && hasType(value, t))) {
    issue(
      value === undefined
        ? 'is required'
        : `must be ${types.map((t) => (t === 'integer' ? 'an integer' : `a ${String(t)}`)).join(' or ')}`,
    );
    return;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => equal(option, value)))
    issue(`must be one of ${list(schema.enum)}`);
  if ('const' in schema && !equal(schema.const, value)) issue(`must be ${JSON.stringify(schema.const)}`);
  if (typeof value === 'number') numberChecks(schema, value, issue);
  if (typeof value === 'string') stringChecks(schema, value, issue);
  if (Array.isArray(value)) arrayChecks(schema, value, run, path, out, depth);
  else if (value !== null && typeof value === 'object')
    objectChecks(schema, value as Record<string, unknown>, run, path, out, depth);
  combinators(schema, value, run, path, out, depth);
}

function numberChecks(schema: Exclude<Schema, boolean>, value: number, issue: (m: string) => void): void {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = schema;
  if (typeof minimum === 'number' && value < minimum) issue(`must be at least ${minimum}`);
  if (typeof maximum === 'number' && value > maximum) issue(`must be at most ${maximum}`);
  if (typeof exclusiveMinimum === 'number' && value <= exclusiveMinimum)
    issue(`must be more than ${exclusiveMinimum}`);
  if (typeof exclusiveMaximum === 'number' && value >= exclusiveMaximum)
    issue(`must be less than ${exclusiveMaximum}`);
  if (typeof multipleOf === 'number' && multipleOf > 0) {
    const ratio = value / multipleOf;
    if (Math.abs(ratio - Math.round(ratio)) > 1e-9) issue(`must be a multiple of ${multipleOf}`);
  }
}

function stringChecks(schema: Exclude<Schema, boolean>, value: string, issue: (m: string) => void): void {
  const { minLength, maxLength, format } = schema;
  if (typeof minLength === 'number' && chars(value) < minLength)
    issue(minLength === 1 ? 'must not be empty' : `must have at least ${minLength} characters`);
  if (typeof maxLength === 'number' && chars(value) > maxLength)
    issue(`must have at most ${maxLength} characters`);
  if (typeof schema.pattern === 'string') {
    const compiled = pattern(schema.pattern);
    if (compiled && !compiled(value)) issue(`must match the pattern ${schema.pattern}`);
  }
  if (typeof format === 'string') {
    const problem = formatProblem(format, value);
    if (problem) issue(problem);
  }
}

function arrayChecks(
  schema: Exclude<Schema, boolean>,
  value: unknown[],
  run: Run,
  path: string,
  out: Issue[],
  depth: number,
): void {
  const { minItems, maxItems } = schema;
  if (typeof minItems === 'number' && value.length < minItems)
    out.push({ path, message: `must have at least ${minItems} item${minItems === 1 ? '' : 's'}` });
  if (typeof maxItems === 'number' && value.length > maxItems)
    out.push({ path, message: `must have at most ${maxItems} items` });
  if (schema.uniqueItems === true) {
    const seen = new Set<string>();
    for (const item of value) {
      const key = JSON.stringify(item);
      if (seen.has(key)) {
        out.push({ path, message: 'must not repeat an item' });
        break;
      }
      seen.add(key);
    }
  }
  const tuple = Array.isArray(schema.prefixItems)
    ? (schema.prefixItems as Schema[])
    : Array.isArray(schema.items)
      ? (schema.items as Schema[])
      : [];
  const rest = Array.isArray(schema.items) ? schema.additionalItems : schema.items;
  value.forEach((item, index) => {
    const itemSchema = index < tuple.length ? tuple[index] : (rest as Schema | undefined);
    check(itemSchema, item, run, `${path}/${index}`, out, depth + 1);
  });
  if (
    schema.contains !== undefined &&
    !value.some((item) => passes(schema.contains as Schema, item, run, path, depth))
  ) {
    out.push({ path, message: 'must contain a matching item' });
  }
}

function escapeKey(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function objectChecks(
  schema: Exclude<Schema, boolean>,
  value: Record<string, unknown>,
  run: Run,
  path: string,
  out: Issue[],
  depth: number,
): void {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = Array.isArray(schema.required)
    ? (schema.required as unknown[]).filter((k): k is string => typeof k === 'string')
    : [];
  for (const key of required)
    if (!(key in value)) out.push({ path: `${path}/${escapeKey(key)}`, message: 'is required' });
  const keys = Object.keys(value);
  if (typeof schema.minProperties === 'number' && keys.length < schema.minProperties)
    out.push({ path, message: `must have at least ${schema.minProperties} properties` });
  if (typeof schema.maxProperties === 'number' && keys.length > schema.maxProperties)
    out.push({ path, message: `must have at most ${schema.maxProperties} properties` });
  const patternProperties = (schema.patternProperties ?? {}) as Record<string, Schema>;
  for (const key of keys) {
    const at = `${path}/${escapeKey(key)}`;
    let matched = false;
    if (Object.hasOwn(properties, key)) {
      matched = true;
      check(properties[key], value[key], run, at, out, depth + 1);
    }
    for (const [source, sub] of Object.entries(patternProperties)) {
      if (pattern(source)?.(key)) {
        matched = true;
        check(sub, value[key], run, at, out, depth + 1);
      }
    }
    if (!matched && schema.additionalProperties !== undefined) {
      if (schema.additionalProperties === false)
        out.push({ path: at, message: `is not a known property (${key})` });
      else check(schema.additionalProperties as Schema, value[key], run, at, out, depth + 1);
    }
  }
  const dependent = (schema.dependentRequired ?? {}) as Record<string, unknown>;
  for (const [key, needs] of Object.entries(dependent)) {
    if (!(key in value) || !Array.isArray(needs)) continue;
    for (const need of needs)
      if (typeof need === 'string' && !(need in value))
        out.push({ path: `${path}/${escapeKey(need)}`, message: `is required with ${key}` });
  }
}

function combinators(
  schema: Exclude<Schema, boolean>,
  value: unknown,
  run: Run,
  path: string,
  out: Issue[],
  depth: number,
): void {
  if (Array.isArray(schema.allOf))
    for (const sub of schema.allOf as Schema[]) check(sub, value, run, path, out, depth + 1);
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = schema[keyword];
    if (!Array.isArray(branches) || branches.length === 0) continue;
    const results = (branches as Schema[]).map((branch) => {
      const issues: Issue[] = [];
      check(branch, value, run, path, issues, depth + 1);
      return issues;
    });
    const passing = results.filter((issues) => issues.length === 0).length;
    if (passing === 0) {
      // The messages of the closest option, so that the fields of the option picked say what is wrong.
      const closest = results.reduce((best, issues) => (issues.length < best.length ? issues : best));
      out.push(...closest);
      if (closest.length === 0 || closest.every((i) => i.path === path))
        out.push({ path, message: 'must match one of the options' });
    } else if (keyword === 'oneOf' && passing > 1) {
      out.push({ path, message: 'must match exactly one of the options' });
    }
  }
  if (schema.not !== undefined && passes(schema.not as Schema, value, run, path, depth))
    out.push({ path, message: 'must not match the excluded schema' });
  if (schema.if !== undefined) {
    const holds = passes(schema.if as Schema, value, run, path, depth);
    const next = holds ? schema.then : schema.else;
    if (next !== undefined) check(next as Schema, value, run, path, out, depth + 1);
  }
}

/** Whether `value` holds against a subschema (one level deeper, on the same budget). */
function passes(schema: Schema, value: unknown, run: Run, path: string, depth: number): boolean {
  const issues: Issue[] = [];
  check(schema, value, run, path, issues, depth + 1);
  return issues.length === 0;
}
