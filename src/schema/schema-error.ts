/**
 * The error the schema layer throws: a bad or unsupported JSON Schema, or a Standard Schema that cannot
 * produce JSON Schema.
 * @module
 */
import { ToolwireError, type LocalErrorCode } from '../protocol/errors.js';

/** The local error codes a {@link SchemaError} carries. */
export type SchemaErrorCode =
  (typeof LocalErrorCode)['InvalidSchema'] | (typeof LocalErrorCode)['UnsupportedSchemaDialect'];

/** Thrown when a schema cannot be used: `INVALID_SCHEMA` or `UNSUPPORTED_SCHEMA_DIALECT`. */
export class SchemaError extends ToolwireError {
  override name = 'SchemaError';
  declare readonly code: SchemaErrorCode;

  constructor(code: SchemaErrorCode, message: string, options?: { cause?: unknown; details?: unknown }) {
    super(code, message, options);
  }
}
