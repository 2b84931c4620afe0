import { describe, it, expect } from 'vitest';
import * as schema from './index.js';

describe('schema barrel', () => {
  it('exports the public runtime API', () => {
    expect(Object.keys(schema).sort()).toEqual([
      'DEFAULT_SCHEMA_DIALECT',
      'MAX_SCHEMA_DEPTH',
      'MAX_SCHEMA_NODES',
      'MAX_SCHEMA_PATTERNS',
      'SCHEMA_DIALECT_URIS',
      'SchemaError',
      'assertSchemaBounds',
      'compileJsonSchema',
      'escapePointerToken',
      'formatIssues',
      'isJsonSchemaObject',
      'isStandardJsonSchema',
      'isStandardSchema',
      'resolveSchema',
      'schemaDialect',
      'toJsonPointer',
    ]);
  });
});
