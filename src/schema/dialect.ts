/**
 * Which JSON Schema dialect a schema is written in, read from its `$schema` keyword.
 * @module
 */
import { LocalErrorCode } from '../protocol/errors.js';
import type { JsonSchema } from './json-schema.js';
import { SchemaError } from './schema-error.js';

/** The JSON Schema dialects toolwire validates with. */
export type SchemaDialect = 'draft-2020-12' | 'draft-2019-09' | 'draft-07';

/** The dialect of a schema without `$schema` (the MCP default). */
export const DEFAULT_SCHEMA_DIALECT: SchemaDialect = 'draft-2020-12';

/** The canonical `$schema` URI of each supported dialect. */
export const SCHEMA_DIALECT_URIS: Readonly<Record<SchemaDialect, string>> = {
  'draft-2020-12': 'https://json-schema.org/draft/2020-12/schema',
  'draft-2019-09': 'https://json-schema.org/draft/2019-09/schema',
  'draft-07': 'http://json-schema.org/draft-07/schema#',
};

const PATTERNS: readonly (readonly [RegExp, SchemaDialect])[] = [
  [/^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/, 'draft-2020-12'],
  [/^https?:\/\/json-schema\.org\/draft\/2019-09\/schema#?$/, 'draft-2019-09'],
  [/^https?:\/\/json-schema\.org\/draft-07\/schema#?$/, 'draft-07'],
];

/**
 * The dialect named by `schema.$schema`: 2020-12 when absent; the URI is matched with `http` or `https` and
 * with or without the trailing `#`.
 *
 * @throws {SchemaError} `UNSUPPORTED_SCHEMA_DIALECT` for any other URI, `INVALID_SCHEMA` when `$schema` is
 *   not a string.
 */
export function schemaDialect(schema: JsonSchema): SchemaDialect {
  const uri = schema.$schema;
  if (uri === undefined) return DEFAULT_SCHEMA_DIALECT;
  if (typeof uri !== 'string') {
    throw new SchemaError(LocalErrorCode.InvalidSchema, `$schema must be a string, got ${typeof uri}`);
  }
  const trimmed = uri.trim();
  for (const [pattern, dialect] of PATTERNS) if (pattern.test(trimmed)) return dialect;
  const supported = Object.values(SCHEMA_DIALECT_URIS).join(', ');
  throw new SchemaError(
    LocalErrorCode.UnsupportedSchemaDialect,
    `unsupported JSON Schema dialect "${uri}"; supported: ${supported} (or no $schema for 2020-12)`,
    { details: { dialect: uri, supported: Object.values(SCHEMA_DIALECT_URIS) } },
  );
}
