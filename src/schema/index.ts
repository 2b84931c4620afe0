/**
 * The schema layer: JSON Schema compilation, Standard Schema support and type inference.
 *
 * Everything exported here is public API; anything not exported here is internal.
 * @module
 */
export { SchemaError } from './schema-error.js';
export type { SchemaErrorCode } from './schema-error.js';
export { isJsonSchemaObject, toJsonPointer, escapePointerToken } from './json-schema.js';
export type { JsonSchema } from './json-schema.js';
export { schemaDialect, DEFAULT_SCHEMA_DIALECT, SCHEMA_DIALECT_URIS } from './dialect.js';
export type { SchemaDialect } from './dialect.js';
export {
  assertSchemaBounds,
  MAX_SCHEMA_DEPTH,
  MAX_SCHEMA_NODES,
  MAX_SCHEMA_PATTERNS,
} from './schema-bounds.js';
export { compileJsonSchema, formatIssues } from './compile.js';
export type { ValidationIssue, ValidationOutcome, Validator } from './compile.js';
export { isStandardSchema, isStandardJsonSchema } from './standard-schema.js';
export type {
  InferInput,
  InferOutput,
  StandardIssueV1,
  StandardJsonSchemaTarget,
  StandardJsonSchemaV1,
  StandardJsonSchemaV1Converter,
  StandardJsonSchemaV1Options,
  StandardJsonSchemaV1Props,
  StandardPathSegmentV1,
  StandardResultV1,
  StandardSchemaV1,
  StandardSchemaV1Props,
  StandardTypedV1Props,
  StandardTypesV1,
} from './standard-schema.js';
export type { FromJsonSchema } from './infer.js';
export { resolveSchema } from './schema-input.js';
export type { InferSchema, ResolvedSchema, SchemaInput } from './schema-input.js';
