/**
 * The one entry the server and the client use for `inputSchema` / `outputSchema`: a plain JSON Schema or a
 * Standard Schema (such as zod v4) becomes the JSON that goes on the wire plus a validator.
 * @module
 */
import { LocalErrorCode, errorMessage } from '../protocol/errors.js';
import { MAX_VALUE_DEPTH, isNestedDeeper } from '../protocol/json-depth.js';
import { isPromiseLike } from '../protocol/promise-like.js';
import {
  compileJsonSchema,
  type ValidationIssue,
  type ValidationOutcome,
  type Validator,
} from './compile.js';
import type { FromJsonSchema } from './infer.js';
import { isJsonSchemaObject, toJsonPointer, type JsonSchema } from './json-schema.js';
import { SchemaError } from './schema-error.js';
import {
  isStandardSchema,
  type InferOutput,
  type StandardIssueV1,
  type StandardResultV1,
  type StandardSchemaV1,
} from './standard-schema.js';

/** What users pass as `inputSchema` or `outputSchema`. */
export type SchemaInput = JsonSchema | StandardSchemaV1;

/** A schema ready for use: its wire JSON and how to validate against it. */
export interface ResolvedSchema<T = unknown> {
  /** The JSON Schema that goes on the wire. */
  json: JsonSchema;
  /** Validates a value; asynchronous only when a Standard Schema validates asynchronously. */
  validate: (value: unknown) => Promise<ValidationOutcome<T>> | ValidationOutcome<T>;
  /** Present when validation is always synchronous (plain JSON Schema): no Promise on the hot path. */
  validateSync?: Validator<T>;
}

/** The type a value has once validated by `S`: the output type of a Standard Schema, or the JSON Schema's. */
export type InferSchema<S> = S extends StandardSchemaV1
  ? InferOutput<S>
  : S extends JsonSchema
    ? FromJsonSchema<S>
    : unknown;

/**
 * Resolves a schema given for a tool's input or output. A plain JSON Schema is compiled now, so a bad schema
 * fails at registration; a Standard Schema produces its 2020-12 JSON Schema (kept exactly as produced).
 * Input is validated with the Standard Schema's own `validate` (which may parse: zod strips unknown keys,
 * fills in defaults, coerces). Output is checked against the JSON Schema it produced, the one that goes on
 * the wire, and then with its own `validate` (its refinements), and the value is kept as given: a value
 * zod would accept only once parsed is refused, since it is sent as it is.
 *
 * @throws {SchemaError} `INVALID_SCHEMA` when the input is neither kind, when a Standard Schema cannot
 *   produce JSON Schema, or when the JSON Schema does not compile (for an output Standard Schema too, e.g.
 *   a pattern with lookaround); `UNSUPPORTED_SCHEMA_DIALECT` for an unsupported `$schema`.
 */
export function resolveSchema<S extends SchemaInput>(
  input: S,
  io: 'input' | 'output',
): ResolvedSchema<InferSchema<S>> {
  if (isStandardSchema(input)) return resolveStandardSchema(input, io) as ResolvedSchema<InferSchema<S>>;
  if (!isJsonSchemaObject(input)) {
    throw new SchemaError(
      LocalErrorCode.InvalidSchema,
      `${io} schema must be a JSON Schema object or a Standard Schema (such as a zod v4 schema)`,
    );
  }
  const validateSync = compileJsonSchema(input) as Validator<InferSchema<S>>;
  // The validator was compiled from this JSON; a copy keeps later edits of the caller's object off the wire.
  const json = JSON.parse(JSON.stringify(input)) as JsonSchema;
  return { json, validate: validateSync, validateSync };
}

function resolveStandardSchema(schema: StandardSchemaV1, io: 'input' | 'output'): ResolvedSchema {
  const props = schema['~standard'];
  const converter = props.jsonSchema;
  if (typeof converter?.[io] !== 'function') {
    throw new SchemaError(
      LocalErrorCode.InvalidSchema,
      `this Standard Schema (vendor "${props.vendor}") cannot produce JSON Schema; ` +
        'pass a JSON Schema or a zod v4 schema',
    );
  }
  let json: unknown;
  try {
    json = converter[io]({ target: 'draft-2020-12' });
  } catch (error) {
    throw new SchemaError(
      LocalErrorCode.InvalidSchema,
      `cannot convert the ${io} schema (vendor "${props.vendor}") to JSON Schema: ${errorMessage(error)}`,
      { cause: error },
    );
  }
  if (!isJsonSchemaObject(json)) {
    throw new SchemaError(
      LocalErrorCode.InvalidSchema,
      `the ${io} schema (vendor "${props.vendor}") produced a JSON Schema that is not an object`,
    );
  }
  const own = (value: unknown): Promise<ValidationOutcome<unknown>> | ValidationOutcome<unknown> => {
    // Bounded as compileJsonSchema bounds values: a Standard Schema's own validation recurses too.
    if (isNestedDeeper(value, MAX_VALUE_DEPTH)) {
      return {
        ok: false,
        issues: [{ path: '', message: `must NOT be nested deeper than ${MAX_VALUE_DEPTH} levels` }],
      };
    }
    const result = props.validate(value);
    return isPromiseLike(result) ? Promise.resolve(result).then(toOutcome) : toOutcome(result);
  };
  if (io === 'input') return { json, validate: own };
  return { json, validate: publishedThenOwn(compiledOutput(json, props.vendor), own) };
}

/**
 * The validator of the JSON Schema an output Standard Schema produced. A schema that does not compile is
 * refused at registration, as the same JSON Schema given plainly would be: results could not be checked
 * against what `tools/list` publishes.
 */
function compiledOutput(json: JsonSchema, vendor: string): Validator<unknown> {
  try {
    return compileJsonSchema(json);
  } catch (error) {
    if (!(error instanceof SchemaError)) throw error;
    throw new SchemaError(
      error.code,
      `the output schema (vendor "${vendor}") produced a JSON Schema that results cannot be checked ` +
        `against: ${error.message}`,
      { cause: error, ...(error.details === undefined ? {} : { details: error.details }) },
    );
  }
}

/**
 * Output: the value must match the published JSON Schema, then the Standard Schema's own checks; the value
 * given is the value (what the Standard Schema parsed it into is not what is sent).
 */
function publishedThenOwn(
  published: Validator<unknown>,
  own: (value: unknown) => Promise<ValidationOutcome<unknown>> | ValidationOutcome<unknown>,
): (value: unknown) => Promise<ValidationOutcome<unknown>> | ValidationOutcome<unknown> {
  const keep = (value: unknown, outcome: ValidationOutcome<unknown>): ValidationOutcome<unknown> =>
    outcome.ok ? { ok: true, value } : outcome;
  return (value) => {
    const checked = published(value);
    if (!checked.ok) return checked;
    const outcome = own(value);
    return isPromiseLike(outcome)
      ? Promise.resolve(outcome).then((o) => keep(value, o))
      : keep(value, outcome);
  };
}

function toOutcome<T>(result: StandardResultV1<T>): ValidationOutcome<T> {
  if (result.issues === undefined) return { ok: true, value: result.value };
  return { ok: false, issues: result.issues.map(toIssue) };
}

function toIssue(issue: StandardIssueV1): ValidationIssue {
  const segments = (issue.path ?? []).map((segment) => {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
    return typeof key === 'symbol' ? (key.description ?? key.toString()) : key;
  });
  return { path: toJsonPointer(segments), message: issue.message };
}
