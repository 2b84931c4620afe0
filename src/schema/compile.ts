/**
 * Compiles plain JSON Schemas into validators with ajv: 2020-12 by default, draft-07 and 2019-09 when
 * `$schema` says so. Nothing is ever fetched: a `$ref` that does not resolve inside the schema is an error.
 * @module
 */
import { Ajv, type ErrorObject, type FuncKeywordDefinition, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { LocalErrorCode, errorMessage } from '../protocol/errors.js';
import { MAX_VALUE_DEPTH, isNestedDeeper } from '../protocol/json-depth.js';
import { schemaDialect, type SchemaDialect } from './dialect.js';
import { PatternSyntaxError } from './ecma-pattern.js';
import { addSchemaFormats } from './formats.js';
import { isJsonSchemaObject, type JsonSchema } from './json-schema.js';
import { linearRegExpEngine } from './linear-regexp.js';
import { patternLocation } from './pattern-location.js';
import { isPlainlyValid } from './plainly-valid.js';
import { assertSchemaBounds } from './schema-bounds.js';
import { SchemaError } from './schema-error.js';
import { uniqueItemsKeyword } from './unique-items.js';

/** One problem found in a value: where (a JSON Pointer such as `/a/0`, `''` for the root) and what. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** The result of a validation: the (possibly parsed) value, or the issues found. */
export type ValidationOutcome<T> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

/** A synchronous validator. */
export interface Validator<T> {
  (value: unknown): ValidationOutcome<T>;
}

/**
 * One line for humans: `/a must be number; must have required property 'b'`. At most `max` issues are
 * listed, followed by `(and N more)`.
 */
export function formatIssues(issues: readonly ValidationIssue[], max = 10): string {
  const shown = issues
    .slice(0, max)
    .map((issue) => (issue.path ? `${issue.path} ${issue.message}` : issue.message));
  if (issues.length > max) shown.push(`(and ${issues.length - max} more)`);
  return shown.join('; ');
}

/** What we use of an ajv instance (the three dialect classes share it). */
interface AjvInstance {
  compile(schema: object): ValidateFunction;
  removeSchema(schema: object): unknown;
  removeKeyword(keyword: string): unknown;
  addKeyword(definition: FuncKeywordDefinition): unknown;
  readonly schemas: Record<string, unknown>;
  readonly refs: Record<string, unknown>;
}

const AJV_OPTIONS: Options = {
  allErrors: true,
  strict: false,
  validateFormats: true,
  logger: false,
  // `pattern` and `patternProperties` run in linear time (see linear-regexp.ts).
  code: { regExp: linearRegExpEngine },
};

const AJV_CLASSES: Record<SchemaDialect, new (options: Options) => AjvInstance> = {
  'draft-2020-12': Ajv2020,
  'draft-2019-09': Ajv2019,
  'draft-07': Ajv,
};

/**
 * ajv keeps a reference to every schema it compiled in its code-generation scope, so a shared instance is
 * replaced after this many compilations (validators already compiled keep working).
 */
const COMPILES_PER_INSTANCE = 500;

/**
 * Two instances per dialect: one that validates each schema against the meta-schema first (compiling the
 * meta-schema on first use, the costly part of a cold start), and one that skips that step, used only for
 * schemas `isPlainlyValid` already knows to be valid.
 */
const instances = new Map<string, { ajv: AjvInstance; compiles: number }>();

function ajvFor(dialect: SchemaDialect, knownValid: boolean): { ajv: AjvInstance; compiles: number } {
  const key = knownValid ? `${dialect} known-valid` : dialect;
  let entry = instances.get(key);
  if (entry === undefined || entry.compiles >= COMPILES_PER_INSTANCE) {
    // Known-valid schemas have no `$ref`, so that instance needs no meta-schemas either (adding them is
    // most of an instance's creation).
    const ajv = new AJV_CLASSES[dialect](
      knownValid ? { ...AJV_OPTIONS, validateSchema: false, meta: false } : AJV_OPTIONS,
    );
    addSchemaFormats(ajv as unknown as Parameters<typeof addSchemaFormats>[0]);
    // ajv compares every pair of object items (30,000 took 36 s); this one is linear (unique-items.ts).
    ajv.removeKeyword('uniqueItems');
    ajv.addKeyword(uniqueItemsKeyword);
    entry = { ajv, compiles: 0 };
    instances.set(key, entry);
  }
  return entry;
}

/** The bound of the JSON-text cache. */
const TEXT_CACHE_SIZE = 1000;
const byObject = new WeakMap<object, Validator<unknown>>();
const byText = new Map<string, Validator<unknown>>();

function cacheByText(text: string, validator: Validator<unknown>): void {
  byText.set(text, validator);
  if (byText.size > TEXT_CACHE_SIZE) {
    const oldest = byText.keys().next();
    if (oldest.done !== true) byText.delete(oldest.value);
  }
}

/**
 * Compiles a JSON Schema into a synchronous validator. The same schema (same object, or same JSON text) is
 * compiled once. The caller's object is not modified, and schemas sharing an `$id` do not conflict.
 *
 * @throws {SchemaError} `UNSUPPORTED_SCHEMA_DIALECT` when `$schema` names a dialect other than 2020-12,
 *   2019-09 or draft-07; `INVALID_SCHEMA` when the schema is not an object, is too large or too deep (see
 *   `MAX_SCHEMA_DEPTH`, `MAX_SCHEMA_NODES`, `MAX_SCHEMA_PATTERNS`), has an unresolvable `$ref`, uses `$async`, has a `pattern` or
 *   `patternProperties` key the linear-time engine refuses (`details: { pattern, path, reason }`), or is
 *   rejected by ajv. Values nested deeper than `MAX_VALUE_DEPTH` (64) levels fail validation.
 */
export function compileJsonSchema(schema: JsonSchema): Validator<unknown> {
  const cached = byObject.get(schema);
  if (cached !== undefined) return cached;
  if (!isJsonSchemaObject(schema)) {
    throw new SchemaError(LocalErrorCode.InvalidSchema, 'a JSON Schema must be a plain object');
  }
  assertSchemaBounds(schema);
  const text = schemaText(schema);
  let validator = byText.get(text);
  if (validator !== undefined) {
    byText.delete(text); // refresh its place in the LRU order
  } else {
    const dialect = schemaDialect(schema);
    const copy = JSON.parse(text) as JsonSchema;
    // The instance already knows its dialect; dropping `$schema` lets the https / no-'#' spellings through.
    delete copy.$schema;
    validator = isPlainlyValid(copy) ? lazily(dialect, copy) : wrap(compileWithAjv(dialect, copy, false));
  }
  cacheByText(text, validator);
  byObject.set(schema, validator);
  return validator;
}

function schemaText(schema: JsonSchema): string {
  try {
    return JSON.stringify(schema);
  } catch (error) {
    throw new SchemaError(LocalErrorCode.InvalidSchema, `invalid JSON Schema: ${errorMessage(error)}`, {
      cause: error,
    });
  }
}

/**
 * A validator for a schema `isPlainlyValid` knows to be valid, compiled when it first validates: ajv can
 * find nothing wrong with it, and a server registers many tools whose calls may never come (ajv's first
 * compilation in a process is a good part of a cold start).
 */
function lazily(dialect: SchemaDialect, copy: JsonSchema): Validator<unknown> {
  let compiled: Validator<unknown> | undefined;
  return (value) => (compiled ??= wrap(compileWithAjv(dialect, copy, true)))(value);
}

function compileWithAjv(dialect: SchemaDialect, copy: JsonSchema, knownValid: boolean): ValidateFunction {
  const entry = ajvFor(dialect, knownValid);
  const { ajv } = entry;
  entry.compiles += 1;
  const schemasBefore = new Set(Object.keys(ajv.schemas));
  const refsBefore = new Set(Object.keys(ajv.refs));
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(copy);
  } catch (error) {
    if (error instanceof PatternSyntaxError) throw patternError(copy, error);
    throw new SchemaError(LocalErrorCode.InvalidSchema, `invalid JSON Schema: ${errorMessage(error)}`, {
      cause: error,
    });
  } finally {
    // Forget the schema and any `$id` it registered, so another schema may reuse the same `$id`.
    ajv.removeSchema(copy);
    for (const key of Object.keys(ajv.schemas)) if (!schemasBefore.has(key)) delete ajv.schemas[key];
    for (const key of Object.keys(ajv.refs)) if (!refsBefore.has(key)) delete ajv.refs[key];
  }
  if ((validate as { $async?: unknown }).$async === true) {
    throw new SchemaError(
      LocalErrorCode.InvalidSchema,
      'invalid JSON Schema: $async schemas are not supported',
    );
  }
  return validate;
}

/** A pattern the linear-time engine refuses, named with its place in the schema. */
function patternError(schema: JsonSchema, error: PatternSyntaxError): SchemaError {
  const pattern = error.pattern ?? '';
  const path = patternLocation(schema, pattern);
  return new SchemaError(
    LocalErrorCode.InvalidSchema,
    `invalid JSON Schema: the pattern ${JSON.stringify(pattern)}${path === undefined ? '' : ` at ${path}`} ` +
      `cannot be used: ${error.message} (patterns run in linear time, without backreferences or lookaround)`,
    { cause: error, details: { pattern, path, reason: error.message } },
  );
}

function wrap(validate: ValidateFunction): Validator<unknown> {
  return (value: unknown): ValidationOutcome<unknown> => {
    // Bounded before ajv runs: its validators, like anything recursive, would exhaust the stack.
    if (isNestedDeeper(value, MAX_VALUE_DEPTH)) {
      return {
        ok: false,
        issues: [{ path: '', message: `must NOT be nested deeper than ${MAX_VALUE_DEPTH} levels` }],
      };
    }
    let valid: unknown;
    try {
      valid = validate(value);
    } catch (error) {
      return { ok: false, issues: [{ path: '', message: `could not be validated: ${errorMessage(error)}` }] };
    }
    if (valid === true) return { ok: true, value };
    return { ok: false, issues: precise(validate.errors ?? []).map(toIssue) };
  };
}

/**
 * The errors without ajv's `if` wrappers (`must match "then" schema`) that a more precise error at or below
 * their place explains: each problem is reported once, where it is.
 */
function precise(errors: readonly ErrorObject[]): ErrorObject[] {
  // Every place at or above a precise error (linear in the errors' paths, however many `if`s there are).
  const explained = new Set<string>();
  for (const error of errors) {
    if (error.keyword === 'if') continue;
    let path = error.instancePath;
    for (;;) {
      if (explained.has(path)) break;
      explained.add(path);
      if (path === '') break;
      path = path.slice(0, path.lastIndexOf('/'));
    }
  }
  return errors.filter((error) => error.keyword !== 'if' || !explained.has(error.instancePath));
}

function toIssue(error: ErrorObject): ValidationIssue {
  let message = error.message ?? `must pass "${error.keyword}" keyword validation`;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    message += `: '${params.additionalProperty}'`;
  } else if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    const allowed = params.allowedValues as unknown[];
    const listed = allowed.slice(0, 10).map((v) => JSON.stringify(v));
    message += `: ${listed.join(', ')}${allowed.length > 10 ? ', ...' : ''}`;
  }
  return { path: error.instancePath, message };
}
